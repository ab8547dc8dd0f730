import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { StoreUnavailableError } from '../../src/errors/app-error.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { basicAuth } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';
import { createTestDatabase, ensurePostgres, isCi } from '../helpers/postgres.js';

/**
 * Issue 17: a pooled PostgreSQL connection that dies while checked out (pg_terminate_backend, a
 * restart, a failover) emitted an unhandled 'error' event and took the process down. Now the
 * request fails (a store error, or a stream that ends) and the next request is served.
 */

const PROJECT = 'acme/demo';

async function setup(t: TestContext) {
  const database = await createTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-pgloss-'));
  const store = new PostgresStore({ url: database.url });
  await store.migrate();
  const config = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent', HEDDLE_DATABASE_URL: database.url });
  const app = await buildApp({ config, store, trainer: null });
  await app.ready();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  t.after(async () => {
    await admin.end();
    await app.close();
    await store.close();
    await database.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const key = (await app.services.auth.createKey({ entity: 'acme', username: 'alice' })).key;
  const post = (url: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  for (let i = 0; i < 600; i += 1) {
    const res = await post('/call/start', makeStart({ id: `c${String(i).padStart(4, '0')}`, inputs: { i } }));
    assert.equal(res.statusCode, 200, res.body);
  }
  /** Ends every connection Heddle holds to the test database, as a failover would. */
  const terminate = async (): Promise<number> => {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND application_name = 'heddle'`,
    );
    for (const { pid } of rows) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    return rows.length;
  };
  return { store, post, terminate };
}

test('a stream whose connection dies fails with a store error; the node serves the next request', async (t) => {
  if ((await ensurePostgres()) === null) {
    assert.ok(!isCi(), 'PostgreSQL must be available under CI=true');
    return t.skip('PostgreSQL is not available');
  }
  const { store, post, terminate } = await setup(t);
  const rows = store.calls.query({ project_id: PROJECT, limit: 600 })[Symbol.asyncIterator]();
  assert.equal((await rows.next()).done, false);
  // the cursor's connection is checked out and idle between batches: the case that crashed
  assert.ok((await terminate()) > 0);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await assert.rejects(
    async () => {
      for (;;) if ((await rows.next()).done) break;
    },
    (error: unknown) => error instanceof StoreUnavailableError,
  );
  const after = await post('/calls/stream_query', { project_id: PROJECT, limit: 5 });
  assert.equal(after.statusCode, 200, after.body);
  assert.equal(after.body.trim().split('\n').length, 5);
});

test('a consumer that stops after its connection died is not left waiting for the dead server', async (t) => {
  if ((await ensurePostgres()) === null) {
    assert.ok(!isCi(), 'PostgreSQL must be available under CI=true');
    return t.skip('PostgreSQL is not available');
  }
  const { store, post, terminate } = await setup(t);
  const rows = store.calls.query({ project_id: PROJECT, limit: 600 })[Symbol.asyncIterator]();
  assert.equal((await rows.next()).done, false);
  await terminate();
  await new Promise((resolve) => setTimeout(resolve, 200));
  // a client that disconnects ends the stream early: closing the cursor must not wait for the server
  const stopped = await Promise.race([
    rows.return!(undefined).then(() => 'stopped'),
    new Promise((resolve) => setTimeout(() => resolve('hung'), 3_000)),
  ]);
  assert.equal(stopped, 'stopped');
  const after = await post('/calls/query_stats', { project_id: PROJECT });
  assert.equal(after.statusCode, 200, after.body);
});

test('connections dropped under a running HTTP request: the request fails cleanly and the next succeeds', async (t) => {
  if ((await ensurePostgres()) === null) {
    assert.ok(!isCi(), 'PostgreSQL must be available under CI=true');
    return t.skip('PostgreSQL is not available');
  }
  const { post, terminate } = await setup(t);
  const running = post('/calls/stream_query', { project_id: PROJECT });
  await terminate();
  const res = await running;
  // either the query finished first, or it failed with the store's error / a cut-short stream
  assert.ok([200, 502, 503].includes(res.statusCode), `${res.statusCode} ${res.body}`);
  await terminate();
  const stats = await post('/calls/query_stats', { project_id: PROJECT });
  assert.ok([200, 502, 503].includes(stats.statusCode), stats.body);
  const after = await post('/calls/query_stats', { project_id: PROJECT });
  assert.equal(after.statusCode, 200, after.body);
  assert.equal(after.json().count, 600);
});
