import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { basicAuth, PROJECT } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';
import { isCi } from '../helpers/postgres.js';

/**
 * Disk full on SQLite (issue 17, docs/reliability-backpressure.md): the data directory on a small
 * tmpfs, filled until writes fail. Writes answer 507 naming the cause, reads keep working, `/health`
 * says degraded, nothing acknowledged is damaged, and ingest resumes by itself once space is freed.
 * Mounting needs root; outside CI a machine without it skips, under CI=true it fails.
 */

function mountSmallFs(t: TestContext, sizeBytes: number): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    if (isCi()) throw error;
    t.skip(`cannot mount a tmpfs (needs root): ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
  t.after(() => {
    execFileSync('umount', [dir], { stdio: 'pipe' });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

test('disk full on SQLite: 507 naming the cause, reads work, /health degraded, ingest resumes once space is freed', async (t) => {
  const dir = mountSmallFs(t, 16 * 1024 * 1024);
  if (dir === null) return;
  const file = path.join(dir, 'heddle.sqlite');
  const config = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' });
  const store = new SqliteStore({ file, maxPendingWrites: config.overload.maxStoreQueue });
  await store.migrate();
  const app = await buildApp({ config, store, trainer: null });
  await app.ready();
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const { key } = await app.services.auth.createKey({ entity: 'acme', username: 'alice' });
  const headers = { authorization: basicAuth(key), 'content-type': 'application/json' };
  const post = (url: string, body: unknown) =>
    app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });

  // fill the filesystem up to the last ~1 MiB with a file the test deletes later
  const ballast = path.join(dir, 'ballast');
  const free = fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
  fs.writeFileSync(ballast, Buffer.alloc(Math.max(0, free - 1024 * 1024)));

  const acknowledged: string[] = [];
  let full: { statusCode: number; body: string } | null = null;
  for (let i = 0; i < 2_000 && full === null; i += 1) {
    const id = `disk-${i}`;
    // random text does not compress away and fills pages quickly
    const res = await post('/call/start', makeStart({ id, inputs: { blob: randomBytes(6_000).toString('hex') } }));
    if (res.statusCode === 200) acknowledged.push(id);
    else full = res;
  }
  assert.ok(full, 'the disk never filled up');
  assert.equal(full.statusCode, 507, full.body);
  assert.deepEqual(JSON.parse(full.body), {
    reason: 'Insufficient storage: the database disk is full (SQLITE_FULL); writes resume once space is freed',
  });
  assert.ok(acknowledged.length > 0);

  // other writes are refused the same way, never with a 500
  const obj = await post('/obj/create', {
    obj: { project_id: PROJECT, object_id: 'big', val: { b: randomBytes(200_000).toString('hex') } },
  });
  assert.equal(obj.statusCode, 507, obj.body);

  const health = await app.inject({ method: 'GET', url: '/health' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), {
    status: 'degraded',
    reasons: ['disk full: the last write failed (SQLITE_FULL); writes answer 507 until space is freed'],
  });

  // reads keep working and see every acknowledged call
  const read = await post('/calls/stream_query', {
    project_id: PROJECT,
    filter: { call_ids: acknowledged },
    columns: ['id'],
  });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(
    read.body
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id)
      .sort(),
    [...acknowledged].sort(),
  );

  // space freed: the next write goes through with nothing restarted, and /health recovers
  fs.rmSync(ballast);
  const resumed = await post('/call/start', makeStart({ id: 'after-space-freed' }));
  assert.equal(resumed.statusCode, 200, resumed.body);
  assert.deepEqual((await app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok' });

  // nothing acknowledged was damaged: the file passes SQLite's integrity check with every call in it
  await store.close();
  const check = new Database(file, { readonly: true });
  try {
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    const stored = check
      .prepare('SELECT COUNT(*) AS n FROM calls WHERE id IN (SELECT value FROM json_each(?))')
      .get(JSON.stringify([...acknowledged, 'after-space-freed'])) as { n: number };
    assert.equal(stored.n, acknowledged.length + 1);
  } finally {
    check.close();
  }
});
