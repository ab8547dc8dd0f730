import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { basicAuth, buildTestApp } from '../helpers/app.js';

/**
 * Requests Node's HTTP parser refuses before a route runs (src/plugins/client-error.ts): the answer
 * says `Connection: close` and carries a reason, so a keep-alive client does not reuse the socket
 * the server is about to destroy. Found by test/security/fuzz-openapi.test.ts: a 431 for an
 * over-long URL made the next request on the same pooled socket fail with "socket hang up", and a
 * path with a broken percent-escape was answered in Fastify's own shape, without a reason.
 */

async function listening(t: TestContext): Promise<number> {
  const h = await buildTestApp(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

/** Writes `raw` on a fresh socket and resolves with everything received until the server closes it. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(raw));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
  });
}

function get(port: number, path: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

test('request headers over the limit answer 431 with a reason and Connection: close', async (t) => {
  const port = await listening(t);
  const answer = await exchange(port, `GET /health?x=${'a'.repeat(http.maxHeaderSize)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 431 /);
  assert.match(head, /\r\nConnection: close\r\n/i);
  assert.match(JSON.parse(body).reason, new RegExp(`over ${http.maxHeaderSize} bytes`));
});

test('bytes that are not HTTP answer 400 with a reason and Connection: close', async (t) => {
  const port = await listening(t);
  const answer = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n');
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 400 /);
  assert.match(head, /\r\nConnection: close\r\n/i);
  assert.match(JSON.parse(body).reason, /^Malformed HTTP request/);
});

test('a keep-alive client whose request got 431 sends its next request on a new socket', async (t) => {
  const port = await listening(t);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  assert.equal(await get(port, '/health', agent), 200);
  assert.equal(await get(port, `/health?x=${'a'.repeat(http.maxHeaderSize)}`, agent), 431);
  // before the fix: "socket hang up", the agent had pooled the socket the server destroyed
  for (let i = 0; i < 3; i += 1) assert.equal(await get(port, '/health', agent), 200);
});

test('a path with a broken percent-escape is a 400 with a reason, on a route and off one', async (t) => {
  const h = await buildTestApp(t);
  for (const url of ['/objs/%zz/aliases/remove', '/v2/%ff%fe/demo/call/start', '/no/such/%']) {
    const res = await h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    // before the fix: Fastify's {"error","code":"FST_ERR_BAD_URL","message"} with no reason
    assert.match(res.json().reason, /^Malformed URL: .* is not valid percent-encoded UTF-8$/, res.body);
  }
});

test('a path parameter past the router cap is a 414 with a reason', async (t) => {
  const h = await buildTestApp(t);
  // the router refuses it before the 1,024-character segment check of connection-limits.ts runs
  const url = `/v2/acme/${'a'.repeat(70_000)}/evaluations`;
  const res = await h.app.inject({ method: 'GET', url, headers: { authorization: basicAuth(h.aliceKey) } });
  // before the fix: 500 (a frameworkErrors handler without this case), and before that Fastify's own shape
  assert.equal(res.statusCode, 414, res.body.slice(0, 300));
  assert.match(res.json().reason, /^URI too long: a path parameter is over the limit of 65536 characters$/);
});
