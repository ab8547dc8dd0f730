import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { startReplicaPair } from '../helpers/pg-replica-pair.js';
import { node, type Node } from '../helpers/process-posts.js';
import { startServerProcess } from '../helpers/server-process.js';

/**
 * Issue 19: with HEDDLE_DATABASE_READ_URLS, reads are served by a streaming replica (its counters
 * move while the primary's stay still), a client reads its own write at once through either of two
 * nodes while both ingest, and a stopped replica changes nothing a client sees.
 */

const PROJECT = 'acme/demo';

/** How many times `calls` was scanned on the server at `url` (sequential and index scans). */
async function callScans(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT (COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0))::text AS n FROM pg_stat_user_tables WHERE relname = 'calls'`,
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/**
 * Waits until the servers' statistics include what was just done: a backend reports them at most
 * once a second, and an idle one within 10 s (PostgreSQL 15).
 */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 11_000));

/** Writes one call through `writer`, then reads it through `reader` at once: the read must find it. */
async function writeThenRead(writer: Node, reader: Node): Promise<void> {
  const id = randomBytes(8).toString('hex');
  const start = await writer.post('/call/start', makeStart({ project_id: PROJECT, id, trace_id: id }));
  assert.equal(start.status, 200, start.text);
  const end = await writer.post('/call/end', makeEnd(id, { project_id: PROJECT }));
  assert.equal(end.status, 200, end.text);
  const read = await reader.post('/call/read', { project_id: PROJECT, id });
  assert.equal(read.status, 200, read.text);
  const call = (JSON.parse(read.text) as { call: { id: string; ended_at: string | null } | null }).call;
  assert.equal(call?.id, id, `call ${id} written through one node was not read through the other`);
  assert.notEqual(call.ended_at, null, `call ${id} read without its end`);
}

test('read replicas: reads go to the replica, read-your-writes across nodes, a stopped replica is passed over', async (t) => {
  // the replica applies every commit 150 ms late: a read it answered without waiting would miss the write
  const pair = await startReplicaPair({ applyDelayMs: 150 });
  t.after(() => pair.dispose());
  const env = {
    HEDDLE_DATABASE_URL: pair.primaryUrl,
    HEDDLE_DATABASE_READ_URLS: pair.replicaUrl,
    HEDDLE_READ_REPLICA_MAX_WAIT_MS: '500',
  };
  const first = await startServerProcess(t, { env });
  const second = await startServerProcess(t, { env: { ...env, HEDDLE_ADMIN_KEY: first.adminKey } });
  t.after(async () => {
    await second.dispose();
    await first.dispose();
  });
  const key = await first.createKey('acme');
  const [a, b] = [node(first, key), node(second, key)];

  await t.test('a stream query is served by the replica', async () => {
    await writeThenRead(a, b);
    await settle();
    const [primaryBefore, replicaBefore] = [await callScans(pair.primaryUrl), await callScans(pair.replicaUrl)];
    for (let i = 0; i < 20; i += 1) {
      const res = await b.post('/calls/stream_query', { project_id: PROJECT, columns: ['id'] });
      assert.equal(res.status, 200, res.text);
    }
    await settle();
    const replicaScans = (await callScans(pair.replicaUrl)) - replicaBefore;
    const primaryScans = (await callScans(pair.primaryUrl)) - primaryBefore;
    // each stream reads the primary's WAL position (one short statement, no table) and scans `calls`
    // on the replica
    assert.ok(replicaScans >= 20, `the replica scanned calls ${replicaScans} times for 20 streams`);
    assert.ok(primaryScans < 10, `the primary scanned calls ${primaryScans} times for 20 streams`);
  });

  await t.test('under ingest through both nodes, each write is read at once through the other node', async () => {
    const pairs: Array<[Node, Node]> = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? [a, b] : [b, a]));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < pairs.length) {
          const [writer, reader] = pairs[next++]!;
          await writeThenRead(writer, reader);
        }
      }),
    );
  });

  await t.test(
    'with the replica stopped, every read and write still succeeds; it is used again once back',
    async () => {
      await pair.stopReplica();
      for (let i = 0; i < 10; i += 1) await writeThenRead(i % 2 === 0 ? a : b, i % 2 === 0 ? b : a);
      const res = await a.post('/calls/stream_query', { project_id: PROJECT, columns: ['id'] });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text.trim().split('\n').length, 71);
      await pair.startReplica();
      // an unreachable replica rests for 5 s before it is tried again
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      const before = await callScans(pair.replicaUrl);
      for (let i = 0; i < 5; i += 1) await writeThenRead(a, b);
      for (let i = 0; i < 5; i += 1) await b.post('/calls/stream_query', { project_id: PROJECT, columns: ['id'] });
      await settle();
      assert.ok((await callScans(pair.replicaUrl)) - before >= 5, 'the replica serves reads again');
    },
  );
});
