import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { basicAuth } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';

/** A server on a SQLite file of its own: the file, and a JSON POST with a member's key. */
async function sqliteApp(t: TestContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-busy-'));
  const config = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' });
  const file = path.join(dir, 'heddle.sqlite');
  const store = new SqliteStore({ file });
  await store.migrate();
  const app = await buildApp({ config, store, trainer: null });
  await app.ready();
  t.after(async () => {
    await app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { key } = await app.services.auth.createKey({ entity: 'acme', username: 'alice' });
  const post = (url: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  return { file, post };
}

/**
 * SQLite's write lock held by another process past the writer's 5 s busy timeout: the waiting
 * writes answer 503 with Retry-After (a 500 before issue 17), and succeed when retried after the lock is gone
 * (docs/reliability-backpressure.md). SQLite only: the PostgreSQL store waits on row locks instead.
 */
test('SQLITE_BUSY past the busy timeout answers 503 with Retry-After, and the retry succeeds', async (t) => {
  const { file, post: postJson } = await sqliteApp(t);
  const post = (id: string) => postJson('/call/start', makeStart({ id }));
  assert.equal((await post('before')).statusCode, 200);

  const lock = new Database(file);
  lock.exec('BEGIN IMMEDIATE');
  let res;
  try {
    res = await post('while-locked');
  } finally {
    lock.exec('ROLLBACK');
    lock.close();
  }
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.headers['retry-after'], '1');
  assert.deepEqual(res.json(), { reason: 'Server busy: the database is locked by another connection; retry later' });
  assert.equal((await post('while-locked')).statusCode, 200);
});

/**
 * A write whose transaction reads before it writes (an object create looks its digest up first)
 * waits for the lock like any other: a deferred BEGIN would have opened a read transaction that
 * SQLite cannot upgrade while another connection writes, and failed at once without the busy
 * timeout (the official Python client then ran out of retries within a 7 s stall).
 */
test('a write that reads first waits for a lock released within the busy timeout', async (t) => {
  const { file, post } = await sqliteApp(t);
  const createObject = (val: unknown) =>
    post('/obj/create', { obj: { project_id: 'acme/busy', object_id: 'config', val } });
  assert.equal((await createObject({ v: 1 })).statusCode, 200);

  const lock = new Database(file);
  lock.exec('BEGIN IMMEDIATE');
  const released = new Promise<void>((resolve) =>
    setTimeout(() => {
      lock.exec('ROLLBACK');
      lock.close();
      resolve();
    }, 1_000),
  );
  const res = await createObject({ v: 2 });
  await released;
  assert.equal(res.statusCode, 200, res.body);
});
