/**
 * Issue 36: the compose files. deploy/compose.yaml (Heddle + PostgreSQL 15) is brought up with the
 * `deploy-compose` snippet of docs/deploy.md as printed (podman-compose, on local stand-ins of the official
 * images), the official Python client traces into it, and `down -v` leaves no container, volume or
 * network of the project behind. deploy/compose.nodes.yaml (two nodes behind HAProxy) is brought up
 * the same way: the client traces through the proxy and each node reads the trace back from the
 * shared database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import { docSnippets, snippet } from '../clients/helpers/readme-snippets.js';
import { streamAllCalls } from '../clients/helpers/ts-demo.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { ensureHaproxyImage, ensurePostgresImage } from './helpers/base-images.js';
import { ensureHeddleImage, waitHealthy } from './helpers/heddle-image.js';
import { COMPOSE_BIN_DIR, ensurePodmanCompose, podman, podmanEnv } from './helpers/podman.js';
import { run } from './helpers/run.js';
import { freePort } from '../helpers/free-port.js';
import { traceAndReadBack, weavePython } from './helpers/weave-trace.js';

interface Project {
  name: string;
  env: NodeJS.ProcessEnv;
  url: string;
}

async function project(): Promise<Project> {
  const name = `heddle-test-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = {
    ...podmanEnv(),
    PATH: `${COMPOSE_BIN_DIR}:${process.env.PATH}`,
    COMPOSE_PROJECT_NAME: name,
    HEDDLE_HTTP_PORT: String(port),
  };
  return { name, env, url: `http://127.0.0.1:${port}` };
}

/** What podman holds of a project: its containers, their volumes (named and anonymous), its networks. */
async function leftovers(name: string): Promise<string[]> {
  const lines = async (args: string[]): Promise<string[]> =>
    (await podman(args)).stdout.split('\n').filter((l) => l.trim() !== '');
  const label = `label=io.podman.compose.project=${name}`;
  return [
    ...(await lines(['ps', '-a', '--filter', label, '--format', 'container {{.Names}}'])),
    ...(await lines(['volume', 'ls', '--format', 'volume {{.Name}}'])).filter((v) => v.includes(name)),
    ...(await lines(['network', 'ls', '--format', 'network {{.Name}}'])).filter((n) => n.includes(name)),
  ];
}

/** Names of the volumes mounted in the project's containers, anonymous ones included. */
async function mountedVolumes(name: string): Promise<string[]> {
  const ids = (await podman(['ps', '-aq', '--filter', `label=io.podman.compose.project=${name}`])).stdout
    .split('\n')
    .filter(Boolean);
  if (ids.length === 0) return [];
  const out = await podman(['inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', ...ids]);
  return out.stdout.split(/\s+/).filter(Boolean);
}

/** `down -v` with the file, then nothing of the project is left, anonymous volumes included. */
async function tearDown(p: Project, file: string): Promise<void> {
  const volumes = await mountedVolumes(p.name);
  await run('podman-compose', ['-f', file, 'down', '-v', '-t', '20'], {
    cwd: REPO_ROOT,
    env: p.env,
    timeoutMs: 180_000,
  });
  assert.deepEqual(await leftovers(p.name), [], 'down -v leaves no container, volume or network');
  const existing = new Set((await podman(['volume', 'ls', '--format', '{{.Name}}'])).stdout.split('\n'));
  assert.deepEqual(
    volumes.filter((v) => existing.has(v)),
    [],
    'no volume the containers used is left',
  );
}

/** Runs a docs/deploy.md block with the project's environment, then prints the key the block exported. */
async function runBlock(
  p: Project,
  code: string,
): Promise<{ stdout: string; adminKey: string; pgPassword: string; key: string }> {
  code = `${code}echo "HEDDLE_ADMIN_KEY=$HEDDLE_ADMIN_KEY POSTGRES_PASSWORD=$POSTGRES_PASSWORD"\n`;
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', code], {
    cwd: REPO_ROOT,
    env: p.env,
    timeoutMs: 300_000,
  });
  const secrets = /^HEDDLE_ADMIN_KEY=(\S+) POSTGRES_PASSWORD=(\S+)$/m.exec(stdout);
  const key = /^key: (\S+)$/m.exec(stdout)?.[1];
  assert.ok(secrets && key, `the snippet exported both secrets and keys create printed a key:\n${stdout}`);
  // `down` reads the file too, whose required variables the block exported
  Object.assign(p.env, { HEDDLE_ADMIN_KEY: secrets[1], POSTGRES_PASSWORD: secrets[2] });
  return { stdout, adminKey: secrets[1]!, pgPassword: secrets[2]!, key };
}

async function setUp(t: TestContext): Promise<string | null> {
  const python = await weavePython(t);
  if (python === null) return null;
  await Promise.all([ensureHeddleImage(), ensurePostgresImage(), ensurePodmanCompose()]);
  return python;
}

test('deploy/compose.yaml: Heddle + PostgreSQL up, traced into, torn down', { timeout: 15 * 60_000 }, async (t) => {
  const python = await setUp(t);
  if (python === null) return;
  const p = await project();
  t.after(() =>
    run('podman-compose', ['-f', 'deploy/compose.yaml', 'down', '-v', '-t', '5'], { cwd: REPO_ROOT, env: p.env }).catch(
      () => undefined,
    ),
  );

  const { adminKey, pgPassword, key } = await runBlock(p, snippet(docSnippets(), 'deploy-compose').code);
  await waitHealthy(p.url, `${p.name}_heddle_1`);
  await traceAndReadBack(python, p.url, key, 'acme/demo');
  // the admin key from the environment works and reads what the client wrote
  assert.equal((await streamAllCalls(p.url, adminKey, 'acme/demo')).length, 3);
  // and the calls are in PostgreSQL's volume, not in the node
  const count = await podman([
    'exec',
    '-e',
    `PGPASSWORD=${pgPassword}`,
    `${p.name}_postgres_1`,
    'psql',
    '-h',
    '127.0.0.1',
    '-U',
    'heddle',
    '-d',
    'heddle',
    '-Atc',
    "SELECT count(*) FROM calls WHERE project_id = 'acme/demo'",
  ]);
  assert.equal(count.stdout.trim(), '3');
  await tearDown(p, 'deploy/compose.yaml');
});

test('deploy/compose.nodes.yaml: two nodes behind HAProxy on one database', { timeout: 15 * 60_000 }, async (t) => {
  const python = await setUp(t);
  if (python === null) return;
  await ensureHaproxyImage();
  const p = await project();
  const file = 'deploy/compose.nodes.yaml';
  t.after(() =>
    run('podman-compose', ['-f', file, 'down', '-v', '-t', '5'], { cwd: REPO_ROOT, env: p.env }).catch(() => undefined),
  );
  const code = snippet(docSnippets(), 'deploy-compose')
    .code.replaceAll('deploy/compose.yaml', file)
    .replace(/\bexec heddle\b/, 'exec heddle-1');
  const { key } = await runBlock(p, code);
  await waitHealthy(p.url, `${p.name}_proxy_1`);
  // the image's HEALTHCHECK, run by hand (no systemd here to schedule it), passes on both nodes
  for (const node of ['heddle-1', 'heddle-2']) await podman(['healthcheck', 'run', `${p.name}_${node}_1`]);
  await traceAndReadBack(python, p.url, key, 'acme/nodes');
  // each node reads the trace written through the proxy: they share the database
  for (const node of ['heddle-1', 'heddle-2']) {
    const probe = `const r = await fetch('http://127.0.0.1:8080/calls/stream_query', { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from('api:${key}').toString('base64'), 'content-type': 'application/json' }, body: JSON.stringify({ project_id: 'acme/nodes' }) }); console.log((await r.text()).trim().split('\\n').length);`;
    const out = await podman(['exec', `${p.name}_${node}_1`, 'node', '--input-type=module', '-e', probe]);
    assert.equal(out.stdout.trim(), '3', `${node} reads the three calls`);
  }
  await tearDown(p, file);
});
