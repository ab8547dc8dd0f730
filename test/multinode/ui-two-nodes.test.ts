import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { makeStart } from '../helpers/factories.js';
import { testDatabase } from '../helpers/postgres.js';
import { basicAuthHeader, runHeddleCli, startServerProcess } from '../helpers/server-process.js';
import { openSse } from '../helpers/sse.js';

/**
 * The web UI across two Heddle processes on one PostgreSQL database: a session made on one node
 * works on the other (it lives in the store), a live tail on one node sees calls written through
 * either node within about a second, each exactly once, and revoking the key ends the session everywhere.
 */

const PROJECT = 'acme/demo';

test('web UI sessions and the live tail work across two nodes', { timeout: 240_000 }, async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const env = { HEDDLE_DATABASE_URL: url, HEDDLE_ADMIN_KEY: randomBytes(24).toString('hex') };
  const [a, b] = await Promise.all([startServerProcess(t, { env }), startServerProcess(t, { env })]);
  const key = await a.createKey('acme', { user: 'alice' });

  const signIn = await fetch(`${a.url}/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: key }),
  });
  assert.equal(signIn.status, 200, await signIn.clone().text());
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
  const onB = await fetch(`${b.url}/auth/session`, { headers: { cookie: cookie! } });
  assert.equal(onB.status, 200, 'the session made on node A is accepted by node B');
  assert.equal(((await onB.json()) as { user: { username: string } }).user.username, 'alice');

  const stream = await openSse(`${b.url}/calls/live_tail?project_id=${encodeURIComponent(PROJECT)}`, {
    cookie: cookie!,
  });
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const post = (base: string, id: string) =>
    fetch(`${base}/call/start`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
      body: JSON.stringify(makeStart({ id, started_at: '2021-01-01T00:00:00Z' })),
    });

  const sent = Date.now();
  assert.equal((await post(a.url, 'from-a')).status, 200);
  const first = await stream.next(5000);
  // live, not within a poll (250 ms) on a quiet machine: the bound leaves room for a loaded CI
  // machine and for this store's own write transactions, which hold PostgreSQL's tail back
  // (postgres-dialect.ts CHANGE_HORIZON); a tail that only caught up at a heartbeat would miss it
  assert.ok(Date.now() - sent < 3000, `a call written on node A reached node B's tail after ${Date.now() - sent} ms`);
  assert.equal((JSON.parse(first.data) as { id: string }).id, 'from-a');

  // concurrent writes through both nodes: every call arrives, once
  const ids = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
  const answers = await Promise.all(ids.map((id, i) => post(i % 2 === 0 ? a.url : b.url, id)));
  assert.ok(answers.every((r) => r.status === 200));
  const seen: string[] = [];
  while (seen.length < ids.length) seen.push((JSON.parse((await stream.next(3000)).data) as { id: string }).id);
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.deepEqual(stream.pending(), [], 'no duplicates');
  assert.deepEqual([...seen].sort(), [...ids].sort());

  // revoking the key through the CLI ends the session on both nodes at once
  const list = await runHeddleCli(['keys', 'list'], a.env);
  const id = list
    .split('\n')
    .find((line) => line.includes('\talice\t'))!
    .split('\t')[0];
  await runHeddleCli(['keys', 'revoke', id!], a.env);
  for (const node of [a, b]) {
    assert.equal((await fetch(`${node.url}/auth/session`, { headers: { cookie: cookie! } })).status, 401);
  }
});
