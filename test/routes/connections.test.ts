import assert from 'node:assert/strict';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { MAX_PATH_SEGMENT_CHARS } from '../../src/plugins/connection-limits.js';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';

/**
 * Issue 17: what one client connection may hold, over real sockets on 127.0.0.1 with short
 * timeouts. A socket that sends nothing, headers trickled byte by byte, or a body shorter than its
 * Content-Length is answered 408 and closed; open connections are capped; an over-long path
 * segment answers 414 on every route and leaves the connection usable.
 */

const HEADERS_MS = 600;
const REQUEST_MS = 1_500;
/** Node checks the timeouts once a second: the bound the tests allow on top of a timeout. */
const SLACK_MS = 2_000;

async function server(t: TestContext, env: Record<string, string> = {}) {
  const h = await buildTestApp(t, {
    HEDDLE_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    HEDDLE_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    ...env,
  });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { h, port: address.port };
}

interface Exchange {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the milliseconds from connect to close. */
  closed: Promise<number>;
  /** Resolves once `text` has been received. */
  waitFor(text: string): Promise<void>;
}

function connect(port: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let data = '';
    const waiters: Array<() => void> = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      for (const w of waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.on('close', () => done(performance.now() - started)));
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed,
        waitFor: (text) =>
          new Promise((done, fail) => {
            const check = (): void => {
              if (data.includes(text)) done();
              else if (socket.destroyed) fail(new Error(`closed before ${JSON.stringify(text)}; got ${data}`));
              else waiters.push(check);
            };
            socket.once('close', check);
            check();
          }),
      }),
    );
    socket.once('error', reject);
  });
}

test('a connection that never sends a byte is answered 408 and closed at the headers timeout', async (t) => {
  const { port } = await server(t);
  const silent = await connect(port);
  const ms = await silent.closed;
  assert.ok(ms < HEADERS_MS + SLACK_MS, `${ms} ms`);
  assert.match(silent.received(), /^HTTP\/1\.1 408/);
});

test('headers trickled byte by byte are cut at the headers timeout', async (t) => {
  const { port } = await server(t);
  const slow = await connect(port);
  const request = 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(200);
  let i = 0;
  const timer = setInterval(() => {
    if (!slow.socket.destroyed && i < request.length) slow.socket.write(request[i++]!);
  }, 50);
  t.after(() => clearInterval(timer));
  const ms = await slow.closed;
  clearInterval(timer);
  assert.ok(ms < HEADERS_MS + SLACK_MS, `${ms} ms`);
  assert.match(slow.received(), /^HTTP\/1\.1 408/);
});

test('a body shorter than its Content-Length ends with 408 at the request timeout', async (t) => {
  const { h, port } = await server(t);
  const short = await connect(port);
  short.socket.write(
    `POST /calls/stream_query HTTP/1.1\r\nHost: x\r\nAuthorization: ${basicAuth(h.aliceKey)}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"project_id":`,
  );
  const ms = await short.closed;
  assert.ok(ms < REQUEST_MS + SLACK_MS, `${ms} ms`);
  assert.match(short.received(), /^HTTP\/1\.1 (400|408)/);
});

test('past the connection cap a request is answered 503 with Retry-After; once idle ones are reaped a query is answered', async (t) => {
  const { h, port } = await server(t, { HEDDLE_MAX_CONNECTIONS: '8' });
  const idle = await Promise.all(Array.from({ length: 8 }, () => connect(port)));
  // past the cap a connection is answered, not closed unanswered (issue 35)
  const extra = await connect(port);
  extra.socket.write('GET /version HTTP/1.1\r\nHost: x\r\n\r\n');
  await extra.closed;
  assert.match(extra.received(), /^HTTP\/1\.1 503 /);
  assert.match(extra.received(), /\r\nRetry-After: 1\r\n/i);
  assert.match(extra.received(), /"reason":"Server busy: 8 connections open \(limit 8\); retry later"/);
  await Promise.all(idle.map((e) => e.closed));
  const res = await fetch(`http://127.0.0.1:${port}/calls/stream_query`, {
    method: 'POST',
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: PROJECT }),
  });
  assert.equal(res.status, 200, await res.text());
});

test('at the connection cap a slow connection (headers unfinished for over a second) is answered 408 to make room for /health', async (t) => {
  const { port } = await server(t, {
    HEDDLE_MAX_CONNECTIONS: '8',
    HEDDLE_HEADERS_TIMEOUT_MS: '60000',
    HEDDLE_REQUEST_TIMEOUT_MS: '60000',
  });
  const slow = await Promise.all(Array.from({ length: 8 }, () => connect(port)));
  for (const s of slow) s.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
  await new Promise((r) => setTimeout(r, 1_200));
  const probe = await fetch(`http://127.0.0.1:${port}/health`);
  assert.equal(probe.status, 200);
  const evicted = slow.filter((s) => s.received().startsWith('HTTP/1.1 408'));
  assert.equal(evicted.length, 1, 'the oldest slow connection made room');
  for (const s of slow) s.socket.destroy();
});

test('an over-long path segment answers 414 on every kind of route and keeps the connection', async (t) => {
  const { h, port } = await server(t);
  const long = 'q'.repeat(MAX_PATH_SEGMENT_CHARS + 1);
  const auth = `Authorization: ${basicAuth(h.aliceKey)}\r\n`;
  const body = JSON.stringify({ project_id: PROJECT, calls: [] });
  const requests = [
    `GET /annotation_queues/${long} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    `POST /v2/acme/${long}/calls/complete HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    `GET /no/such/${long} HTTP/1.1\r\nHost: x\r\n\r\n`,
  ];
  const conn = await connect(port);
  const statuses = (): string[] => conn.received().match(/HTTP\/1\.1 \d+/g) ?? [];
  for (const [n, request] of requests.entries()) {
    conn.socket.write(request);
    const deadline = performance.now() + 2_000;
    while (!(statuses().length > n && conn.received().endsWith('}')) && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(statuses()[n], 'HTTP/1.1 414', conn.received());
  }
  conn.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.match(conn.received(), /HTTP\/1\.1 200/);
  assert.ok(!conn.socket.destroyed);
  conn.socket.destroy();
});
