import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { testDatabase } from '../helpers/postgres.js';
import { node, type Node } from '../helpers/process-posts.js';
import { runHeddleCli, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * Two Heddle processes on two ports share one PostgreSQL database and act as one service
 * (docs/scaling.md "Several nodes behind a load balancer"): every acknowledged write is visible through either node, a
 * batch delivered to both nodes (a client retrying through a load balancer) is stored once, and
 * a client reads its own write at once whichever node it reaches next.
 */

const PROJECT = 'acme/demo';

async function visibleIds(n: Node): Promise<string[]> {
  const res = await n.post('/calls/stream_query', { project_id: PROJECT, columns: ['id'] });
  assert.equal(res.status, 200, res.text);
  return res.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { id: string }).id);
}

/** Runs `tasks` with at most `limit` in flight. */
async function pooled<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** Concurrent ingest through both nodes: every acknowledged call is visible through either. */
async function concurrentIngest(nodes: Node[]): Promise<void> {
  const [, b] = nodes;
  assert.ok(b !== undefined);
  const tasks = Array.from({ length: 240 }, (_, i) => async () => {
    const id = `ingest-${String(i).padStart(4, '0')}`;
    const via = nodes[i % 2]!;
    const batch = [
      {
        mode: 'start',
        req: makeStart({
          id,
          trace_id: `trace-${i % 20}`,
          started_at: new Date(Date.UTC(2025, 0, 1, 10, 0, 0, i)).toISOString(),
        }),
      },
      { mode: 'end', req: makeEnd(id, { output: { i } }) },
    ];
    const res = await via.post('/call/upsert_batch', { batch });
    return res.status === 200 ? id : null;
  });
  const acknowledged = (await pooled(tasks, 24)).filter((id): id is string => id !== null);
  assert.equal(acknowledged.length, 240, 'every write was acknowledged');
  for (const n of nodes)
    assert.deepEqual((await visibleIds(n)).filter((id) => id.startsWith('ingest-')).sort(), acknowledged.sort());
  const stats = await b.post('/calls/query_stats', { project_id: PROJECT, filter: { trace_ids: ['trace-3'] } });
  assert.equal((JSON.parse(stats.text) as { count: number }).count, 12);
}

/** The same batch sent to both nodes at once (three times) is stored once. */
async function sameBatchTwice(nodes: Node[]): Promise<void> {
  const [a] = nodes;
  assert.ok(a !== undefined);
  const batch = Array.from({ length: 40 }, (_, i) => {
    const id = `dup-${String(i).padStart(3, '0')}`;
    return [
      { mode: 'start', req: makeStart({ id, inputs: { i, text: 'same' } }) },
      { mode: 'end', req: makeEnd(id, { output: i }) },
    ];
  }).flat();
  for (let round = 0; round < 3; round += 1) {
    const answers = await Promise.all(nodes.map((n) => n.post('/call/upsert_batch', { batch })));
    for (const res of answers) assert.equal(res.status, 200, res.text);
  }
  for (const n of nodes) {
    const dups = (await visibleIds(n)).filter((id) => id.startsWith('dup-'));
    assert.equal(dups.length, 40, 'no call is duplicated');
    assert.equal(new Set(dups).size, 40);
  }
  const read = await a.post('/call/read', { project_id: PROJECT, id: 'dup-007' });
  const call = (JSON.parse(read.text) as { call: { inputs: unknown; output: unknown } }).call;
  assert.deepEqual(call.inputs, { i: 7, text: 'same' });
  assert.equal(call.output, 7);
}

/** A client reads its own write right away through the other node. */
async function readYourWrites([a, b]: Node[]): Promise<void> {
  for (let i = 0; i < 30; i += 1) {
    const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
    assert.ok(writer !== undefined);
    assert.ok(reader !== undefined);
    const id = `ryw-${i}`;
    assert.equal((await writer.post('/call/start', makeStart({ id, display_name: `n${i}` }))).status, 200);
    const read = await reader.post('/call/read', { project_id: PROJECT, id });
    assert.equal(
      (JSON.parse(read.text) as { call: { display_name: string } | null }).call?.display_name,
      `n${i}`,
      `call ${id} written through one node is missing on the other`,
    );
    assert.equal((await reader.post('/call/end', makeEnd(id, { output: 'done' }))).status, 200);
    const ended = await writer.post('/call/read', { project_id: PROJECT, id });
    assert.equal((JSON.parse(ended.text) as { call: { output: unknown } }).call.output, 'done');
  }
}

/** A key revoked through one process is refused by both at once. */
async function revocation(serverA: ServerProcess, serverB: ServerProcess): Promise<void> {
  const other = await serverB.createKey('acme', { user: 'temp' });
  const status = async (n: ServerProcess): Promise<number> =>
    (await node(n, other).post('/calls/query_stats', { project_id: PROJECT })).status;
  assert.deepEqual([await status(serverA), await status(serverB)], [200, 200]);
  const id = /^(\S+)\t/m.exec(
    (await runHeddleCli(['keys', 'list'], serverA.env)).split('\n').find((line) => line.includes('\ttemp\t')) ?? '',
  )?.[1];
  assert.ok(id, 'keys list shows the key');
  await runHeddleCli(['keys', 'revoke', id], serverA.env);
  assert.deepEqual([await status(serverA), await status(serverB)], [401, 401]);
}

/** Keys managed over HTTP: made through one node, revoked through the other, refused by both at once. */
async function revocationOverHttp(serverA: ServerProcess, serverB: ServerProcess): Promise<void> {
  const admin = (n: ServerProcess) => node(n, n.adminKey);
  const created = await admin(serverA).post('/keys/create', { entity: 'acme', username: 'temp-http' });
  assert.equal(created.status, 200, created.text);
  const { id, key } = JSON.parse(created.text) as { id: string; key: string };
  const status = async (n: ServerProcess): Promise<number> =>
    (await node(n, key).post('/calls/query_stats', { project_id: PROJECT })).status;
  assert.deepEqual([await status(serverA), await status(serverB)], [200, 200]);
  const revoked = await admin(serverB).post('/keys/revoke', { entity: 'acme', id });
  assert.equal(revoked.status, 200, revoked.text);
  assert.deepEqual([await status(serverA), await status(serverB)], [401, 401]);
  const listed = await admin(serverA).post('/keys/query', { entity: 'acme' });
  const row = (JSON.parse(listed.text) as { keys: Array<{ id: string; revoked_at: string | null }> }).keys.find(
    (k) => k.id === id,
  );
  assert.ok(row?.revoked_at, listed.text);
}

test('two nodes on one PostgreSQL act as one service', { timeout: 240_000 }, async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const env = { HEDDLE_DATABASE_URL: url, HEDDLE_ADMIN_KEY: randomBytes(24).toString('hex') };
  // both start at once: their migrations meet on the advisory lock
  const [serverA, serverB] = await Promise.all([startServerProcess(t, { env }), startServerProcess(t, { env })]);
  assert.notEqual(serverA.port, serverB.port);
  // a key made through the CLI of one node's environment is known to both (nothing is cached per node)
  const key = await serverA.createKey('acme', { user: 'alice' });
  const nodes = [node(serverA, key), node(serverB, key)];
  await t.test('concurrent ingest through both nodes: every acknowledged call is visible through either', () =>
    concurrentIngest(nodes),
  );
  await t.test('the same batch sent to both nodes at once is stored once', () => sameBatchTwice(nodes));
  await t.test('a client reads its own write right away through the other node', () => readYourWrites(nodes));
  await t.test('a key revoked through one process is refused by both at once', () => revocation(serverA, serverB));
  await t.test('a key revoked over HTTP through one node is refused by both at once', () =>
    revocationOverHttp(serverA, serverB),
  );
});
