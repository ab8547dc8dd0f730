/**
 * Issue 36: the container image (deploy/Containerfile), built with docs/deploy.md's snippet from the
 * checkout's build on a local Node 20 base image, run with podman and checked from outside: health
 * and the image's HEALTHCHECK, the web UI at `/`, a non-root process, the admin key kept out of the
 * log, the official Python client tracing in and reading back, tfjs's WASM backend inside, data on
 * the volume surviving stop/start, SIGTERM during ingest losing no acknowledged call, and a SQLite
 * data directory and a PostgreSQL database written by an older Heddle migrated in place.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { docSnippets, snippet } from '../clients/helpers/readme-snippets.js';
import { streamAllCalls } from '../clients/helpers/ts-demo.js';
import { basicAuthHeader } from '../helpers/server-process.js';
import { MIGRATIONS } from '../../src/store/sql/migrations/index.js';
import {
  emptyPostgres,
  postgresBeforeMigration,
  sqliteBeforeMigration,
  withPostgres,
  withSqlite,
} from '../store/schema/fresh-schemas.js';
import { createKeyIn, ensureHeddleImage, inspect, logs, publishedUrl, waitHealthy } from './helpers/heddle-image.js';
import { podman, podmanEnv } from './helpers/podman.js';
import { freePort } from '../helpers/free-port.js';
import { run } from './helpers/run.js';
import { traceAndReadBack, weavePython } from './helpers/weave-trace.js';

const SUFFIX = randomBytes(4).toString('hex');
const NAME = `heddle-test-${SUFFIX}`;
const VOLUME = `heddle-test-data-${SUFFIX}`;

/** Removes a container and its anonymous volumes, ignoring one that is already gone. */
async function removeContainer(name: string): Promise<void> {
  await podman(['rm', '-f', '-v', '-t', '5', name]).catch(() => undefined);
}

/** docs/deploy.md's `deploy-run` block with this run's container name, volume and a free host port. */
function runSnippet(): string {
  return snippet(docSnippets(), 'deploy-run')
    .code.replace(/--name heddle\b/g, `--name ${NAME}`)
    .replace(/podman exec heddle\b/g, `podman exec ${NAME}`)
    .replace(/-p 127\.0\.0\.1:8080:8080/g, '-p 127.0.0.1::8080')
    .replace(/\bheddle-data:/g, `${VOLUME}:`);
}

interface Written {
  acked: string[];
  answers: Map<number, number>;
}

/** Four writers posting 5-call batches until the server stops answering; the ids of acknowledged batches. */
function startWriters(url: string, key: string, project: string): { written: Written; done: Promise<void> } {
  const written: Written = { acked: [], answers: new Map() };
  let n = 0;
  const loop = async (): Promise<void> => {
    for (;;) {
      const batchNo = (n += 1);
      const ids = Array.from({ length: 5 }, (_, i) => `term-${batchNo}-${i}`);
      const started_at = new Date().toISOString();
      const batch = ids.flatMap((id) => [
        {
          mode: 'start',
          req: {
            start: {
              project_id: project,
              id,
              trace_id: `t-${batchNo}`,
              op_name: 'ingest',
              started_at,
              attributes: {},
              inputs: { batchNo },
            },
          },
        },
        {
          mode: 'end',
          req: { end: { project_id: project, id, ended_at: started_at, output: { batchNo }, summary: {} } },
        },
      ]);
      let status: number;
      try {
        const res = await fetch(`${url}/call/upsert_batch`, {
          method: 'POST',
          headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
          body: JSON.stringify({ batch }),
        });
        await res.text();
        status = res.status;
      } catch {
        return; // the connection failed: the server is gone, this batch was not acknowledged
      }
      written.answers.set(status, (written.answers.get(status) ?? 0) + 1);
      if (status === 200) written.acked.push(...ids);
      else return; // 503 while closing (Fastify refuses new requests); anything else fails the test below
    }
  };
  return { written, done: Promise.all([loop(), loop(), loop(), loop()]).then(() => undefined) };
}

test(
  'the container image: built from the checkout, run and checked from outside',
  { timeout: 15 * 60_000 },
  async (t) => {
    const python = await weavePython(t);
    if (python === null) return;
    const image = await ensureHeddleImage();
    t.after(async () => {
      await removeContainer(NAME);
      await podman(['volume', 'rm', '-f', VOLUME]).catch(() => undefined);
    });

    await t.test('the image: numeric non-root user, /data volume, HEALTHCHECK kept, no key baked in', async () => {
      const [inspected] = JSON.parse((await podman(['image', 'inspect', image])).stdout) as Array<{
        Size: number;
        Healthcheck?: { Test: string[] };
        Config: { User: string; Env: string[]; Volumes: Record<string, unknown>; Entrypoint: string[] };
      }>;
      const config = inspected!.Config;
      assert.equal(config.User, '10001:10001');
      assert.deepEqual(Object.keys(config.Volumes), ['/data']);
      assert.deepEqual(config.Entrypoint, ['node', '/app/dist/main.js']);
      assert.deepEqual(
        inspected!.Healthcheck?.Test,
        ['CMD', 'node', '/app/healthcheck.mjs'],
        'kept by --format docker',
      );
      assert.ok(!config.Env.some((e) => /^(HEDDLE_ADMIN_KEY|HEDDLE_DATABASE_URL)=/.test(e)), config.Env.join('\n'));
      const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).stdout);
      t.diagnostic(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);
    });

    let url = '';
    let key = '';
    await t.test(
      'docs/deploy.md deploy-run: health, HEALTHCHECK, UI at /, non-root, generated key only on the volume',
      async () => {
        const out = await run('bash', ['-euo', 'pipefail', '-c', runSnippet()], {
          env: podmanEnv(),
          timeoutMs: 120_000,
        });
        url = await publishedUrl(NAME);
        await waitHealthy(url, NAME);
        await podman(['healthcheck', 'run', NAME]);
        const adminKey = out.stdout.trim().split('\n').at(-1)!;
        assert.match(adminKey, /^[0-9a-f]{40}$/, `the snippet prints /data/admin-key:\n${out.stdout}`);
        assert.ok(!(await logs(NAME)).includes(adminKey), 'the generated admin key never reaches the log');
        const ui = await fetch(`${url}/`);
        assert.equal(ui.status, 200);
        assert.match(await ui.text(), /<div id="root">/);
        const pid = await inspect(NAME, '{{.State.Pid}}');
        const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        assert.deepEqual([uids?.[1], uids?.[2]], ['10001', '10001'], 'PID 1 of the container runs as 10001');
        assert.equal(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), 'node', 'node itself is PID 1');
        key = await createKeyIn(NAME, 'acme');
      },
    );

    await t.test('the official Python client traces into the container and reads back', async () => {
      assert.ok(url && key, 'the container runs and a key was made (above)');
      await traceAndReadBack(python, url, key, 'acme/demo');
    });

    await t.test('tfjs picks its WASM backend inside the image (the built-in trainer)', async () => {
      const probe = `const { initBackend, tf } = await import('/app/dist/training/policy/tf-backend.js');
      const backend = await initBackend();
      console.log(JSON.stringify({ backend, product: Array.from(tf.matMul(tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]])).dataSync()) }));`;
      const out = await podman(['exec', NAME, 'node', '--input-type=module', '-e', probe]);
      assert.deepEqual(JSON.parse(out.stdout.trim()), { backend: 'wasm', product: [11] });
    });

    await t.test(
      'SIGTERM (podman stop) during ingest loses no acknowledged call; data survives stop/start',
      async () => {
        const project = 'acme/ingest';
        const writers = startWriters(url, key, project);
        let stopped = false;
        void writers.done.then(() => (stopped = true));
        while (writers.written.acked.length < 250 && !stopped) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.ok(!stopped, `the writers stopped before SIGTERM: ${JSON.stringify([...writers.written.answers])}`);
        await podman(['stop', '-t', '30', NAME], 60_000);
        await writers.done;
        assert.equal(
          await inspect(NAME, '{{.State.ExitCode}}'),
          '0',
          `a clean exit after SIGTERM\n${await logs(NAME)}`,
        );
        assert.match(await logs(NAME), /"signal":"SIGTERM"/);
        await podman(['start', NAME]);
        url = await publishedUrl(NAME);
        await waitHealthy(url, NAME);
        const stored = new Set((await streamAllCalls(url, key, project)).map((c) => String(c.id)));
        const lost = writers.written.acked.filter((id) => !stored.has(id));
        t.diagnostic(
          `${writers.written.acked.length} calls acknowledged before SIGTERM, answers ${JSON.stringify([...writers.written.answers])}`,
        );
        assert.deepEqual(lost, [], 'every acknowledged call is stored after the restart');
        assert.deepEqual(
          [...writers.written.answers.keys()].filter((s) => s !== 200 && s !== 503),
          [],
          'only 200 or, while closing, 503',
        );
        // the trace of the Python client, written before the first stop, is still on the volume
        const demo = await streamAllCalls(url, key, 'acme/demo');
        assert.equal(demo.length, 3);
      },
    );

    await t.test('a SQLite data directory written by an older Heddle is migrated in place', async (st) => {
      await upgradeSqlite(st, image);
    });

    await t.test('a PostgreSQL database written by an older Heddle is migrated in place', async (st) => {
      await upgradePostgres(st, image);
    });
  },
);

const OLD_CALL = `INSERT INTO calls (project_id, id, started_at, display_name, change_seq)
  VALUES ('acme/legacy', 'c1', 1735725600000, 'from an older heddle', NULL)`;
/** Migration 21 (call_display) is the one test/store/schema/migration-021-upgrade.test.ts upgrades across. */
const UPGRADE_FROM = 21;
const ADMIN_KEY = randomBytes(20).toString('hex');

async function readLegacy(url: string): Promise<void> {
  const calls = await streamAllCalls(url, ADMIN_KEY, 'acme/legacy');
  assert.deepEqual(
    calls.map((c) => [c.id, c.display_name]),
    [['c1', 'from an older heddle']],
  );
}

async function upgradeSqlite(t: TestContext, image: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-old-data-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'heddle.sqlite');
  sqliteBeforeMigration(file, UPGRADE_FROM, OLD_CALL);
  fs.chownSync(dir, 10001, 10001);
  fs.chownSync(file, 10001, 10001);
  const name = `${NAME}-sqlite-upgrade`;
  t.after(() => removeContainer(name));
  await podman([
    'run',
    '-d',
    '--name',
    name,
    '-p',
    '127.0.0.1::8080',
    '-v',
    `${dir}:/data`,
    '-e',
    `HEDDLE_ADMIN_KEY=${ADMIN_KEY}`,
    image,
  ]);
  const url = await publishedUrl(name);
  await waitHealthy(url, name);
  await readLegacy(url);
  assert.ok(!(await logs(name)).includes(ADMIN_KEY), 'HEDDLE_ADMIN_KEY never reaches the log');
  await podman(['stop', '-t', '30', name], 60_000);
  withSqlite(file, (db) => assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.id));
}

async function upgradePostgres(t: TestContext, image: string): Promise<void> {
  const dbUrl = await emptyPostgres(t);
  if (dbUrl === null) return;
  await postgresBeforeMigration(dbUrl, UPGRADE_FROM, OLD_CALL);
  const name = `${NAME}-pg-upgrade`;
  t.after(() => removeContainer(name));
  // host networking: the test's PostgreSQL listens on the host's loopback
  const port = await freePort();
  const probePort = await freePort();
  await podman([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    '-e',
    'HEDDLE_HOST=127.0.0.1',
    '-e',
    `HEDDLE_PORT=${port}`,
    // the image's 8081 may be taken on the host
    '-e',
    `HEDDLE_PROBE_PORT=${probePort}`,
    '-e',
    `HEDDLE_DATABASE_URL=${dbUrl}`,
    '-e',
    `HEDDLE_ADMIN_KEY=${ADMIN_KEY}`,
    image,
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, name);
  await readLegacy(url);
  await podman(['stop', '-t', '30', name], 60_000);
  const ids = await withPostgres(
    dbUrl,
    async (c) => (await c.query<{ id: number }>('SELECT max(id) AS id FROM heddle_schema_migrations')).rows[0]!.id,
  );
  assert.equal(ids, MIGRATIONS.at(-1)!.id);
}
