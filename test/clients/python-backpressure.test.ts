import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { basicAuthHeader, startServerProcess } from '../helpers/server-process.js';
import { ensureWeaveVenv } from './python-venv.js';
import { startInteractiveDemo } from './python-script.js';

/**
 * The official Python client against a node whose store stalls (issue 17,
 * docs/reliability-backpressure.md): the SQLite write lock is held by another connection, so
 * writes queue up to HEDDLE_MAX_STORE_QUEUE and the rest answer 503 with Retry-After (past the
 * busy timeout the queued ones answer 503 too). Once the lock is released, the client's retries
 * deliver every call.
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'backpressure_demo.py');
const CALLS = 60;
/** Longer than the writer's 5 s busy timeout, so both kinds of 503 are met. */
const STALL_MS = 7_000;

test('a stalled store answers 503; after release the Python client delivers every call', async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(venv.reason);
    return t.skip(venv.reason);
  }
  const server = await startServerProcess(t, {
    env: { HEDDLE_MAX_STORE_QUEUE: '4', HEDDLE_LOG_LEVEL: 'debug', HEDDLE_LOG_FORMAT: 'json' },
  });
  const key = await server.createKey('acme', { user: 'alice' });
  const demo = await startInteractiveDemo(t, venv.python, SCRIPT, server.url, key, [
    'acme/backpressure',
    String(CALLS),
  ]);

  // the store stalls: another connection holds the write lock
  const lock = new Database(path.join(server.dataDir, 'heddle.sqlite'));
  lock.exec('BEGIN IMMEDIATE');
  demo.child.stdin.write('go\n');
  await new Promise((resolve) => setTimeout(resolve, STALL_MS));
  const refusedWhileStalled = server.output().match(/"status":503/g)?.length ?? 0;
  lock.exec('ROLLBACK');
  lock.close();

  assert.equal(await demo.exited, 0, demo.log());
  process.stdout.write(`# 503 answers while the store stalled: ${refusedWhileStalled}\n`);
  const ids = (JSON.parse(demo.stdout().trim().split('\n').at(-1) ?? '{}') as { ids: string[] }).ids;
  assert.equal(ids.length, CALLS);
  assert.ok(refusedWhileStalled > 0, `no request was refused while the store stalled\n${server.output().slice(-4000)}`);
  assert.doesNotMatch(server.output(), /"status":500/);

  const res = await fetch(`${server.url}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: 'acme/backpressure', filter: { call_ids: ids }, columns: ['id', 'output'] }),
  });
  assert.equal(res.status, 200);
  const stored = (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; output: unknown });
  assert.deepEqual(stored.map((c) => c.id).sort(), [...ids].sort(), demo.log());
  // each call is complete (its end arrived too), not only started
  for (const call of stored) assert.notEqual(call.output, null, JSON.stringify(call));
});
