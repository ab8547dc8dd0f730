import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { basicAuth, buildTestApp, PROJECT, TEST_STORE, type TestApp } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';

/**
 * Back-pressure and per-key rate limits (issue 17, docs/reliability-backpressure.md): past a
 * bound, 503 or 429 with `Retry-After` and a `{"reason"}` body; `/health` always answers.
 */

function assertRefused(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number) {
  assert.equal(res.statusCode, status);
  assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
  const body = res.json() as { reason?: unknown };
  assert.equal(typeof body.reason, 'string');
}

test('past HEDDLE_MAX_IN_FLIGHT a request answers 503 with Retry-After; /health still answers', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const h = await buildTestApp(
    t,
    { HEDDLE_MAX_IN_FLIGHT: '2' },
    {
      beforeReady: (app) =>
        app.get('/probe/slow', async () => {
          await gate;
          return { ok: true };
        }),
    },
  );
  const slow = [h.get('/probe/slow'), h.get('/probe/slow')];
  // both slow requests have passed the hook once the event loop turned a few times
  await new Promise((resolve) => setTimeout(resolve, 50));
  const refused = await h.post('/call/start', makeStart({ id: 'refused' }));
  assertRefused(refused, 503);
  assert.match((refused.json() as { reason: string }).reason, /2 requests in flight \(limit 2\)/);
  const health = await h.get('/health', null);
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  open();
  for (const res of await Promise.all(slow)) assert.equal(res.statusCode, 200);
  // the count went back down: requests are served again
  assert.equal((await h.post('/call/start', makeStart({ id: 'later' }))).statusCode, 200);
});

/** Holds the store's write lock from another connection, as another process (or a paused database) would. */
async function stallWrites(h: TestApp): Promise<() => Promise<void>> {
  if (TEST_STORE === 'sqlite') {
    const db = new Database(path.join(h.config.dataDir, 'heddle.sqlite'));
    db.exec('BEGIN IMMEDIATE');
    return async () => {
      db.exec('ROLLBACK');
      db.close();
    };
  }
  const client = new pg.Client({ connectionString: h.config.databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE calls IN EXCLUSIVE MODE');
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}

test('a stalled store: the write queue stays at HEDDLE_MAX_STORE_QUEUE, the rest answer 503, nothing accepted is lost', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_MAX_STORE_QUEUE: '4' });
  assert.equal((await h.post('/call/start', makeStart({ id: 'first' }))).statusCode, 200);
  const release = await stallWrites(h);
  let released = false;
  t.after(async () => {
    if (!released) await release();
  });
  const ids = Array.from({ length: 30 }, (_, i) => `stalled-${i}`);
  const pending = ids.map((id) => h.post('/call/start', makeStart({ id, trace_id: id })));
  // the refused ones answer while the store is still stalled
  const settled = new Map<string, { statusCode: number }>();
  pending.forEach((p, i) => void p.then((res) => settled.set(ids[i]!, res)));
  const deadline = Date.now() + 3_000;
  while (settled.size < ids.length - 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled.size, ids.length - 4, 'all but the queued writes answered while the store stalled');
  for (const res of settled.values()) assertRefused(res as never, 503);
  assert.ok(h.store.load().pendingWrites <= 4);
  const health = await h.get('/health', null);
  assert.equal(health.statusCode, 200);
  const healthBody = health.json() as { status: string; reasons: string[] };
  assert.equal(healthBody.status, 'degraded');
  assert.match(healthBody.reasons.join('\n'), /overloaded: 4 store operations waiting \(limit 4\)/);
  // reads that need no write keep working
  assert.equal((await h.get('/projects')).statusCode, 200);

  await release();
  released = true;
  const results = await Promise.all(pending);
  const accepted = ids.filter((_, i) => results[i]!.statusCode === 200);
  assert.equal(accepted.length, 4);
  assert.deepEqual(
    results.map((r) => r.statusCode).filter((s) => s !== 200 && s !== 503),
    [],
  );
  // every accepted write is stored; the refused ones were not, and go through when retried
  const refusedIds = ids.filter((id) => !accepted.includes(id));
  for (const id of refusedIds)
    assert.equal((await h.post('/call/start', makeStart({ id, trace_id: id }))).statusCode, 200);
  const query = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { call_ids: ids } });
  assert.equal(query.statusCode, 200);
  assert.equal(query.body.trim().split('\n').length, ids.length);
  assert.deepEqual((await h.get('/health', null)).json(), { status: 'ok' });
});

test('per-key rate limit: 429 with Retry-After and X-RateLimit-* past the burst; other keys unaffected', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RATE_LIMIT_PER_KEY: '0.5', HEDDLE_RATE_LIMIT_BURST: '3' });
  const remaining: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const res = await h.get('/version');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '3');
    remaining.push(String(res.headers['x-ratelimit-remaining']));
  }
  assert.deepEqual(remaining, ['2', '1', '0']);
  const limited = await h.post('/call/start', makeStart({ id: 'limited' }));
  assertRefused(limited, 429);
  assert.equal(limited.headers['x-ratelimit-remaining'], '0');
  // one token comes back every 2 s
  assert.equal(limited.headers['retry-after'], '2');
  assert.match(
    (limited.json() as { reason: string }).reason,
    /Rate limit exceeded: 0.5 requests per second per API key/,
  );
  assert.equal((await h.get('/version', h.bobKey)).statusCode, 200);
  // health routes are never limited and carry no rate headers
  const health = await h.get('/health');
  assert.equal(health.statusCode, 200);
  assert.equal(health.headers['x-ratelimit-limit'], undefined);
  // training routes answer {"detail"} as their clients expect
  const training = await h.post('/v1/chat/completions', {});
  assert.equal(training.statusCode, 429);
  assert.equal(typeof (training.json() as { detail?: unknown }).detail, 'string');
});

test('rate limit off by default: no X-RateLimit headers', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.get('/version');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['x-ratelimit-limit'], undefined);
});

test('a client that disconnects keeps its in-flight slot until its handler ends; a hijacked stream frees it on close', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let handlerEnded = false;
  const h = await buildTestApp(
    t,
    { HEDDLE_MAX_IN_FLIGHT: '1' },
    {
      beforeReady: (app) => {
        app.get('/probe/slow', async () => {
          await gate;
          handlerEnded = true;
          return { ok: true };
        });
        app.get('/probe/stream', async (_request, reply) => {
          // as the live tail answers (routes/live-tail.ts): the connection ends with the stream
          reply.hijack();
          reply.raw.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' });
          reply.raw.write(': open\n\n');
          reply.raw.on('close', () => reply.raw.end());
        });
      },
    },
  );
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  const auth = { authorization: basicAuth(h.aliceKey) };
  const status = async (url: string) => (await fetch(`${base}${url}`, { headers: auth })).status;

  // the client gives up on a slow request: its work goes on, and so does its slot
  const aborted = new AbortController();
  const slow = fetch(`${base}/probe/slow`, { headers: auth, signal: aborted.signal }).catch(() => null);
  await new Promise((resolve) => setTimeout(resolve, 100));
  aborted.abort();
  await slow;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await status('/server_info'), 503);
  // the probes answer while the bound is reached (issue 35)
  assert.equal(await status('/version'), 200);
  assert.equal(await status('/health'), 200);
  open();
  while (!handlerEnded) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await status('/server_info'), 200);

  // a hijacked reply (the live tail) holds its slot while open and gives it back when it closes
  const stream = new AbortController();
  const streaming = await fetch(`${base}/probe/stream`, { headers: auth, signal: stream.signal });
  assert.equal(streaming.status, 200);
  assert.equal(await status('/server_info'), 503);
  stream.abort();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await status('/server_info'), 200);
});

test('a refused request is answered before its body is read', async (t) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const h = await buildTestApp(
    t,
    { HEDDLE_MAX_IN_FLIGHT: '1' },
    {
      beforeReady: (app) =>
        app.get('/probe/slow', async () => {
          await gate;
          return { ok: true };
        }),
    },
  );
  t.after(() => open());
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (h.app.server.address() as AddressInfo).port;
  const slow = fetch(`http://127.0.0.1:${port}/probe/slow`, { headers: { authorization: basicAuth(h.aliceKey) } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  // headers announcing a 30 MB body, and none of the body: the answer cannot have waited for it
  const socket = net.connect(port, '127.0.0.1');
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
    });
  });
  socket.write(
    'POST /call/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Authorization: ${basicAuth(h.aliceKey)}\r\nContent-Length: ${30 * 1024 * 1024}\r\n\r\n{"start":`,
  );
  const text = await answer;
  socket.destroy();
  assert.match(text, /^HTTP\/1\.1 503 /);
  assert.match(text, /\r\nretry-after: 1\r\n/i);
  open();
  assert.equal((await slow).status, 200);
});
