import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuthHeader, startServerProcess } from '../helpers/server-process.js';
import { openSse } from '../helpers/sse.js';

/** Graceful shutdown with live tails open: SIGTERM ends every stream and the process exits promptly with 0. */

test('SIGTERM with open live tails exits promptly and ends the streams', { timeout: 120_000 }, async (t) => {
  const server = await startServerProcess(t);
  const headers = { authorization: basicAuthHeader(server.adminKey) };
  const streams = await Promise.all(
    ['acme/demo', 'acme/demo', 'other/x'].map((p) =>
      openSse(`${server.url}/calls/live_tail?project_id=${encodeURIComponent(p)}`, headers),
    ),
  );
  t.after(() => streams.forEach((s) => s.close()));
  assert.deepEqual(
    streams.map((s) => s.status),
    [200, 200, 200],
  );
  const started = Date.now();
  assert.equal(await server.stop(), 0, `exit code after SIGTERM; output:\n${server.output().slice(-2000)}`);
  const stopMs = Date.now() - started;
  assert.ok(stopMs < 5_000, `shutdown took ${stopMs} ms`);
  await Promise.all(streams.map((s) => s.ended));
});
