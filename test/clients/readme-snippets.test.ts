/**
 * The runnable snippets of README.md and docs/*.md (test/clients/helpers/readme-snippets.ts), run
 * exactly as printed against a real Heddle process: the README's set-up block gives the environment (its `keys create` line is run through the CLI for the same entity,
 * its `export`s are applied with the test server's address and the new key, as a user would set
 * them), then the Python snippet runs with the pinned `weave` client, the TypeScript snippet as the
 * file it names with plain `node` (no loader), and the curl lines of docs/training.md and
 * docs/opentelemetry.md with bash (the deploy snippets of docs/deploy.md run in test/deploy). The set-up
 * block is read, not assumed: it may name other variables later.
 */
import assert from 'node:assert/strict';
import { execFile, type ExecFileException } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { streamAllCalls } from './helpers/ts-demo.js';
import { docSnippets, parseSetUp, readmeText, setUpEnv, snippet } from './helpers/readme-snippets.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from './python-venv.js';

const SNIPPETS = docSnippets();
const SET_UP = parseSetUp(snippet(SNIPPETS, 'setup').code);
const RUN_TIMEOUT_MS = 150_000;

interface Ran {
  code: number | null;
  out: string;
}

/** Runs `file args` in `cwd` with only `env` (plus PATH), in a fresh HOME and TMPDIR: a user's clean machine. */
function runIn(cwd: string, file: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: cwd, TMPDIR: cwd, PYTHONUNBUFFERED: '1', ...env };
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: fullEnv, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error: ExecFileException | null, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, out: `--- stdout\n${stdout}\n--- stderr\n${stderr}` });
      },
    );
  });
}

/** A server, the key the set-up block creates, the environment after it, and a scratch directory. */
async function setUp(t: TestContext): Promise<{ server: ServerProcess; env: Record<string, string>; dir: string }> {
  const server = await startServerProcess(t);
  assert.ok(SET_UP.keyEntity, 'the set-up block creates a key with `keys create --entity …`');
  const key = await server.createKey(SET_UP.keyEntity);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-readme-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { server, env: setUpEnv(SET_UP, server.url, key), dir };
}

function describe(run: Ran, server: ServerProcess): string {
  return `exit ${run.code}\n${run.out.slice(-6000)}\n--- heddle (tail)\n${server.output().slice(-4000)}`;
}

/** The one call of the snippets' `answer` op (the TS client names its positional argument `arg0`). */
async function assertAnswerCall(server: ServerProcess, env: Record<string, string>, run: Ran): Promise<void> {
  const calls = await streamAllCalls(server.url, env.WANDB_API_KEY!, 'acme/demo');
  assert.deepEqual(
    calls.map((c) => [/\/op\/([^:]+):/.exec(String(c.op_name))?.[1], c.output, Object.values(c.inputs)]),
    [['answer', '4', ['What is 2+2?']]],
    describe(run, server),
  );
}

test('README set-up block: a key for an entity and the client variables, all pointing at one server', () => {
  assert.ok(SET_UP.exports.length > 0, 'the set-up block exports the client variables');
  assert.ok(
    SET_UP.exports.some((e) => e.name === 'WANDB_API_KEY'),
    'the set-up block exports WANDB_API_KEY',
  );
  const env = setUpEnv(SET_UP, 'http://127.0.0.1:1', 'k');
  for (const [name, value] of Object.entries(env))
    assert.ok(value === 'k' || value.startsWith('http://127.0.0.1:1'), `${name}=${value}`);
  // the cache caveat sits between the set-up lines and the Python snippet, where a user with an
  // existing weave environment reads it before running anything
  assert.deepEqual(
    [snippet(SNIPPETS, 'setup').file, snippet(SNIPPETS, 'python').file, snippet(SNIPPETS, 'typescript').file],
    ['README.md', 'README.md', 'README.md'],
    'the set-up block and the client snippets are in the README, where a newcomer starts',
  );
  const text = readmeText();
  const caveat = text.indexOf('WEAVE_USE_SERVER_CACHE=false');
  assert.ok(caveat > snippet(SNIPPETS, 'setup').offset && caveat < snippet(SNIPPETS, 'python').offset);
});

test('README Python snippet runs as printed and records the answer call', { timeout: 900_000 }, async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
    t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
    return;
  }
  const py = snippet(SNIPPETS, 'python');
  assert.equal(py.lang, 'python');
  const { server, env, dir } = await setUp(t);
  fs.writeFileSync(path.join(dir, 'app.py'), py.code);
  const run = await runIn(dir, venv.python, ['app.py'], env);
  assert.equal(run.code, 0, describe(run, server));
  await assertAnswerCall(server, env, run);
});

test('README TypeScript snippet runs as printed with node on the file it names', { timeout: 180_000 }, async (t) => {
  const ts = snippet(SNIPPETS, 'typescript');
  const fileName = /^\/\/\s*(\S+\.m?[jt]s)\s*$/m.exec(ts.code.split('\n')[0]!)?.[1];
  assert.ok(fileName, 'the TypeScript snippet names its file on its first line (`// app.mjs`)');
  const { server, env, dir } = await setUp(t);
  fs.writeFileSync(path.join(dir, fileName), ts.code);
  // what `npm install weave` gives the user's project: the pinned devDependency
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const run = await runIn(dir, process.execPath, [fileName], env);
  assert.equal(run.code, 0, describe(run, server));
  assert.equal(fs.existsSync(path.join(dir, 'weaveErrors.log')), false, 'the client wrote weaveErrors.log');
  await assertAnswerCall(server, env, run);
});

test(
  'docs/training.md curl lines create a model and get a chat completion from it',
  { timeout: 180_000 },
  async (t) => {
    const curl = snippet(SNIPPETS, 'training-curl');
    assert.equal(curl.lang, 'sh');
    assert.ok(curl.code.trim().split('\n').length <= 3, 'three lines');
    const { server, env, dir } = await setUp(t);
    const run = await runIn(dir, 'bash', ['-e', '-c', curl.code], env);
    assert.equal(run.code, 0, describe(run, server));
    const lines = run.out
      .slice(run.out.indexOf('--- stdout\n') + 11, run.out.indexOf('\n--- stderr'))
      .replace(/\}\{/g, '}\n{')
      .split('\n')
      .filter((l) => l.trim() !== '');
    assert.equal(lines.length, 2, describe(run, server));
    const [model, completion] = lines.map((l) => JSON.parse(l) as Record<string, any>);
    assert.ok(model !== undefined);
    assert.ok(completion !== undefined);
    assert.match(String(model.id), /\S/, describe(run, server));
    assert.equal(completion.object, 'chat.completion', describe(run, server));
    assert.equal(completion.choices[0].message.role, 'assistant');
    assert.equal(typeof completion.choices[0].message.content, 'string');
  },
);

test('docs/opentelemetry.md curl line lands as a chat call in a thread', { timeout: 120_000 }, async (t) => {
  const curl = snippet(SNIPPETS, 'otel-curl');
  assert.equal(curl.lang, 'sh');
  const { server, env, dir } = await setUp(t);
  const run = await runIn(dir, 'bash', ['-e', '-c', curl.code], env);
  assert.equal(run.code, 0, describe(run, server));
  assert.match(run.out, /\{"partial_success":null\}/, describe(run, server));
  const [call, ...more] = await streamAllCalls(server.url, env.WANDB_API_KEY!, 'acme/demo');
  assert.ok(call !== undefined);
  assert.deepEqual(more, []);
  assert.match(String(call.op_name), /\/op\/chatcompletion:/);
  assert.deepEqual([call.thread_id, call.turn_id, call.attributes.user_id], ['session-1', call.id, 'user-1']);
  assert.deepEqual(call.inputs, { messages: [{ role: 'user', content: 'Hi' }] });
  assert.deepEqual(call.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: null }],
  });
});
