import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { basicAuthHeader, REPO_ROOT, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * The OpenTelemetry Python SDK with its OTLP/HTTP protobuf exporter (PyPI, pinned) exporting a
 * nested GenAI trace to a real Heddle process (docs/spec/otel-service-queues.md §A), plain and gzip-compressed.
 */

const execFileP = promisify(execFile);
const OTEL_PY_VERSION = '1.45.2';
const PACKAGES = [
  `opentelemetry-sdk==${OTEL_PY_VERSION}`,
  `opentelemetry-exporter-otlp-proto-http==${OTEL_PY_VERSION}`,
];
/** Gitignored; reused between runs once the pinned packages import. */
const VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-otel-py');
const PYTHON = path.join(VENV_DIR, 'bin', 'python');
const SCRIPT = path.join(REPO_ROOT, 'test', 'clients', 'python', 'otel_export.py');

async function run(
  file: string,
  args: string[],
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await execFileP(file, args, {
      cwd: REPO_ROOT,
      timeout: timeoutMs,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { ok: true, out: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000) };
  }
}

/** The venv's python with the pinned SDK, creating it when needed; a reason string when impossible. */
async function ensureOtelVenv(): Promise<{ python: string } | { reason: string }> {
  const check = () =>
    run(
      PYTHON,
      [
        '-c',
        'import importlib.metadata as m; print(m.version("opentelemetry-sdk"), m.version("opentelemetry-exporter-otlp-proto-http"))',
      ],
      60_000,
    );
  if (fs.existsSync(PYTHON) && (await check()).out.trim() === `${OTEL_PY_VERSION} ${OTEL_PY_VERSION}`)
    return { python: PYTHON };
  if (!fs.existsSync(PYTHON)) {
    if (
      process.env.CI === 'true' &&
      process.getuid?.() === 0 &&
      !(await run('python3', ['-c', 'import venv, ensurepip'], 30_000)).ok
    ) {
      await run('apt-get', ['update'], 300_000);
      await run('apt-get', ['install', '-y', 'python3', 'python3-venv', 'python3-pip'], 600_000);
    }
    fs.mkdirSync(path.dirname(VENV_DIR), { recursive: true });
    const made = await run('python3', ['-m', 'venv', VENV_DIR], 300_000);
    if (!made.ok) return { reason: `python3 -m venv failed: ${made.out}` };
  }
  const pip = await run(PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...PACKAGES], 900_000);
  if (!pip.ok) return { reason: `pip install ${PACKAGES.join(' ')} failed: ${pip.out}` };
  return (await check()).ok ? { python: PYTHON } : { reason: 'the SDK does not import after install' };
}

async function readCalls(server: ServerProcess, key: string, project: string): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${server.url}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project }),
  });
  assert.equal(res.status, 200);
  return (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function exportAndCheck(
  python: string,
  server: ServerProcess,
  key: string,
  project: string,
  gzip: boolean,
): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-otelpy-'));
  const env = { PATH: process.env.PATH, HOME: home, PYTHONUNBUFFERED: '1' };
  const res = await run(python, [SCRIPT, server.url, key, project, ...(gzip ? ['gzip'] : [])], 120_000, env);
  fs.rmSync(home, { recursive: true, force: true });
  assert.ok(res.ok, `otel_export.py failed:\n${res.out}\n--- heddle\n${server.output().slice(-4000)}`);
  const ids = JSON.parse(res.out.trim().split('\n').at(-1)!) as { trace_id: string; root_id: string; child_id: string };
  const calls = await readCalls(server, key, project);
  assert.equal(calls.length, 2, `${res.out}\n${server.output().slice(-4000)}`);
  const root = calls.find((c) => c.id === ids.root_id)!;
  const child = calls.find((c) => c.id === ids.child_id)!;
  assert.equal(root.trace_id, ids.trace_id);
  assert.equal(child.parent_id, ids.root_id);
  assert.match(root.op_name, new RegExp(`^weave:///${project}/op/invoke_agent_py_planner:`));
  assert.deepEqual([root.thread_id, root.turn_id], ['py-thread', ids.root_id]);
  assert.deepEqual(Object.keys(root.inputs), ['goal', 'big'], 'the generic `input` JSON object is de-nested');
  assert.equal(root.inputs.goal, 'trip');
  assert.equal(root.output, 'done');
  assert.equal(child.exception, 'ValueError: bad');
  assert.equal(child.summary.weave.status, 'error');
  // the failed child rolls up into its root (docs/spec/otel-service-queues.md §A.7), as Weave marks it
  assert.equal(root.summary.weave.status, 'descendant_error');
  assert.deepEqual(root.summary.usage['gpt-4o-mini'].total_tokens, 18);
  assert.deepEqual(child.summary.usage['gpt-4o-mini'], {
    input_tokens: 11,
    output_tokens: 7,
    prompt_tokens: 11,
    completion_tokens: null,
    total_tokens: 18,
    requests: null,
  });
  assert.deepEqual(child.attributes.model_parameters, { model: 'gpt-4o-mini', stop_sequences: ['a', 'b'] });
  assert.equal(child.attributes.team, 'py');
  assert.equal(child.attributes.otel_span.events[0].attributes.exception.type, 'ValueError');
  assert.equal(child.attributes.otel_span.resource.attributes.service.name, 'py-e2e');
  // the big integer inside the input JSON arrives exactly (checked on the raw line)
  const raw = await fetch(`${server.url}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project, filter: { call_ids: [ids.root_id] } }),
  });
  assert.match(await raw.text(), /"big":9223372036854775807[,}]/);
}

test(`OpenTelemetry Python SDK ${OTEL_PY_VERSION} (OTLP/HTTP protobuf, plain and gzip) against a real Heddle process`, async (t) => {
  const venv = await ensureOtelVenv();
  if ('reason' in venv) {
    if (process.env.CI === 'true') assert.fail(venv.reason);
    t.skip(venv.reason);
    return;
  }
  const server = await startServerProcess(t);
  const key = await server.createKey('acme');
  await exportAndCheck(venv.python, server, key, 'acme/py-otel', false);
  await exportAndCheck(venv.python, server, key, 'acme/py-otel-gz', true);
});
