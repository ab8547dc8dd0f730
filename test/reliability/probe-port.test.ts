import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { startProbePort } from '../../src/plugins/probe-port.js';
import type { HealthReport } from '../../src/plugins/probe-thread.js';
import { freePort } from '../helpers/free-port.js';

/**
 * The probe port (HEDDLE_PROBE_PORT, issue 35): /health and /version from a thread of its own,
 * the main thread's health report passed on, and a stuck main thread reported as such.
 */

async function get(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: res.status, body: await res.text() };
}

/** Blocks this thread (and so its event loop) for `ms`. */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** One raw request on a socket written while this thread is blocked; the answer's status line. */
async function askWhileStuck(port: number, stuckMs: number): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => socket.once('end', resolve));
  blockFor(stuckMs);
  // written at once to the kernel; the probe thread answers while this thread is still blocked
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  blockFor(300);
  await ended;
  return Buffer.concat(chunks).toString('utf8');
}

test('the probe port answers /health and /version, passes the health report on, and says when the API is stuck', async (t) => {
  let report: HealthReport = { status: 'ok' };
  const port = await freePort();
  const probe = await startProbePort({
    host: '127.0.0.1',
    port,
    version: '9.9.9',
    stallMs: 3_000,
    health: () => report,
  });
  t.after(() => probe.stop());
  assert.equal(probe.port, port);

  assert.deepEqual(await get(port, '/health'), { status: 200, body: '{"status":"ok"}' });
  assert.deepEqual(await get(port, '/health?probe=1', 'HEAD'), { status: 200, body: '' });
  assert.deepEqual(await get(port, '/version'), { status: 200, body: '{"version":"9.9.9"}' });
  const other = await get(port, '/calls/stream_query');
  assert.equal(other.status, 404);
  assert.match(other.body, /serves GET \/health and \/version/);
  assert.equal((await get(port, '/health', 'POST')).status, 405);

  // a changed report reaches the thread with the next beat
  report = { status: 'degraded', reasons: ['disk full: the last write failed'] };
  let seen = '';
  for (let i = 0; i < 100 && !seen.includes('degraded'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = (await get(port, '/health')).body;
  }
  assert.deepEqual(JSON.parse(seen), report);

  // this thread stands in for a stuck API: its beat stops, and the probe answers 503
  const answer = await askWhileStuck(port, 4_500);
  assert.match(answer, /^HTTP\/1\.1 503 /);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: string; reasons: string[] };
  assert.equal(body.status, 'unresponsive');
  assert.match(body.reasons[0]!, /event loop has not run for \d+ ms \(limit 3000 ms\)/);
  // and once it runs again, /health is back to the report
  let back = 0;
  for (let i = 0; i < 100 && back !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    back = (await get(port, '/health')).status;
  }
  assert.equal(back, 200);
});

test('a probe port that cannot listen names the variable; a stopped one is closed', async () => {
  const port = await freePort();
  const first = await startProbePort({
    host: '127.0.0.1',
    port,
    version: 'x',
    stallMs: 1_000,
    health: () => ({ status: 'ok' }),
  });
  await assert.rejects(
    startProbePort({ host: '127.0.0.1', port, version: 'x', stallMs: 1_000, health: () => ({ status: 'ok' }) }),
    new RegExp(`The probe port 127\\.0\\.0\\.1:${port} \\(HEDDLE_PROBE_PORT\\) cannot listen: .*EADDRINUSE`),
  );
  await first.stop();
  await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
});

test('configuration: no probe port unless set; a listen backlog of 4,096 by default', () => {
  const config = loadConfig({});
  assert.equal(config.probePort, null);
  assert.equal(config.listenBacklog, 4_096);
  assert.equal(config.probeStallMs, 10_000);
  assert.equal(loadConfig({ HEDDLE_PROBE_PORT: '9090', HEDDLE_PROBE_STALL_MS: '2000' }).probePort, 9090);
  assert.throws(() => loadConfig({ HEDDLE_PROBE_PORT: '70000' }), /HEDDLE_PROBE_PORT/);
  assert.throws(() => loadConfig({ HEDDLE_LISTEN_BACKLOG: '0' }), /HEDDLE_LISTEN_BACKLOG/);
});
