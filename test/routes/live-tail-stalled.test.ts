import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';

/**
 * A live-tail client that stops reading (src/routes/live-tail.ts): once its socket's buffers are
 * full, the stream waits for 'drain', which never comes. Closing the server must still end it,
 * and promptly. Found by test/security/fuzz-openapi.test.ts: with event streams left unread while
 * calls kept arriving, `app.close()` waited forever (SIGTERM would hang the same way).
 */

/** Generous: the fixed stream ends at once; the broken one never did. */
const CLOSE_BOUND_MS = 20_000;

test('closing the server ends a live tail whose client stopped reading', async (t) => {
  const h = await buildTestApp(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  assert.ok(address !== null && typeof address === 'object');

  const stalled = net.connect({ host: '127.0.0.1', port: address.port });
  t.after(() => stalled.destroy());
  await new Promise<void>((resolve) => stalled.once('connect', resolve));
  stalled.on('error', () => undefined);
  const url = `/calls/live_tail?project_id=${encodeURIComponent(PROJECT)}`;
  stalled.write(`GET ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: ${basicAuth(h.aliceKey)}\r\n\r\n`);
  await new Promise<void>((resolve) => stalled.once('data', () => resolve()));
  stalled.pause(); // reads nothing more: the kernel's buffers, then Node's, fill up

  // far more than loopback buffers hold, so the stream ends up waiting for 'drain'
  const inputs = { text: 'x'.repeat(256 * 1024) };
  for (let i = 0; i < 160; i += 1) {
    const res = await h.post('/call/start', makeStart({ id: `big-${i}`, trace_id: `t-${i}`, inputs }));
    assert.equal(res.statusCode, 200, res.body);
  }
  await sleep(1_000); // a few polls of the tail

  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_BOUND_MS);
  });
  const closed = await Promise.race([h.app.close().then(() => 'closed' as const), late]);
  clearTimeout(timer);
  stalled.destroy(); // so a failing run reports instead of hanging in the test's own clean-up
  assert.equal(closed, 'closed', `app.close() did not finish within ${CLOSE_BOUND_MS} ms`);
});
