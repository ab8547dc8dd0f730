/**
 * A rush and a slowloris against the compiled server (`npm run bench:rush`; issue 35). Starts
 * `node dist/main.js serve` (build it first: `npm run build:server`) on an empty SQLite store with
 * the default bounds, then, from a worker thread (so the clients' work is off this thread's clock):
 *
 * 1. **Burst**: BENCH_RUSH_CLIENTS (2,000) `POST /call/start` at once, each on its own connection,
 *    while `/health` and `/version` are probed every 10 ms on fresh connections. Reports the
 *    statuses (and connection errors: resets, closes without an answer) and the probes' p50/p99/max.
 * 2. **Slowloris**: BENCH_RUSH_CLIENTS connections that trickle header bytes (one byte a second
 *    each) for BENCH_SLOW_S seconds (10), with the same probes.
 *
 * Writes bench/results/rush-<stamp>.{md,json}. Knobs: BENCH_RUSH_CLIENTS, BENCH_SLOW_S.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { freePort, startHeddle } from './lib/processes.js';
import { resultsMarkdown, writeResults } from './lib/report.js';

const CLIENTS = Number(process.env.BENCH_RUSH_CLIENTS ?? 2_000);
const SLOW_S = Number(process.env.BENCH_SLOW_S ?? 10);

interface Probe {
  path: string;
  status: number;
  ms: number;
}
interface PhaseOut {
  statuses: Record<string, number>;
  probes: Probe[];
}

/** Plain JavaScript for the worker (tsx does not compile eval'd source). */
const CLIENT_SOURCE = `
const http = require('node:http');
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const { port, probePort, auth, clients, phase, slowMs } = workerData;
function probe(path, onProbePort) {
  const started = performance.now();
  const label = (onProbePort ? 'probe port ' : '') + path;
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port: onProbePort ? probePort : port, path, agent: false,
      headers: { authorization: auth } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ path: label, status: res.statusCode, ms: performance.now() - started }));
    }).on('error', (e) => resolve({ path: label, status: -1, ms: performance.now() - started, error: String(e) }));
  });
}
function post(i) {
  const body = JSON.stringify({ start: { project_id: 'rush/rush', id: 'rush-' + i, trace_id: 'rush-' + i,
    op_name: 'rush', started_at: new Date().toISOString(), attributes: {}, inputs: { i } } });
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/call/start', agent: false,
      headers: { authorization: auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => { res.resume(); res.on('end', () => resolve(String(res.statusCode))); });
    req.on('error', (e) => resolve(e.code || 'error'));
    req.end(body);
  });
}
function slow() {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    let timer;
    let answer = 'open';
    s.on('connect', () => {
      s.write('GET /health HTTP/1.1\\r\\nHost: x\\r\\nX-Slow: ');
      timer = setInterval(() => s.write('a'), 1000);
    });
    s.on('data', (d) => { answer = String(d).slice(0, 12); });
    s.on('error', (e) => { answer = e.code || 'error'; });
    s.on('close', () => { clearInterval(timer); resolve(answer); });
    setTimeout(() => s.destroy(), slowMs);
  });
}
if (phase === 'probe') {
  // its own thread, so the load's 2,000 connections do not delay reading a probe's answer
  const probes = [];
  const timer = setInterval(() => {
    for (const onProbePort of [false, true]) { probes.push(probe('/health', onProbePort)); probes.push(probe('/version', onProbePort)); }
  }, 10);
  parentPort.once('message', async () => {
    clearInterval(timer);
    parentPort.postMessage(await Promise.all(probes));
  });
} else (async () => {
  const ids = Array.from({ length: clients }, (_, i) => i);
  const results = phase === 'burst' ? await Promise.all(ids.map(post)) : await Promise.all(ids.map(slow));
  const statuses = {};
  for (const r of results) statuses[r] = (statuses[r] || 0) + 1;
  parentPort.postMessage(statuses);
})();
`;

function thread(workerData: Record<string, unknown>): Worker {
  return new Worker(CLIENT_SOURCE, { eval: true, workerData });
}

function answer<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.once('message', (out: T) => {
      resolve(out);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** One phase: the load in one thread, the probes in another, until the load has ended. */
async function run(port: number, probePort: number, auth: string, phase: 'burst' | 'slow'): Promise<PhaseOut> {
  const common = { port, probePort, auth, clients: CLIENTS, slowMs: SLOW_S * 1000 };
  const prober = thread({ ...common, phase: 'probe' });
  const probesDone = answer<Probe[]>(prober);
  const statuses = await answer<Record<string, number>>(thread({ ...common, phase }));
  prober.postMessage('stop');
  return { statuses, probes: await probesDone };
}

function quantiles(probes: Probe[], p: string): string {
  const ms = probes
    .filter((x) => x.path === p)
    .map((x) => x.ms)
    .sort((a, b) => a - b);
  const at = (q: number): string => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? NaN).toFixed(1);
  const failed = probes.filter((x) => x.path === p && x.status !== 200).length;
  return `${ms.length} probes, ${failed} not 200; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms.at(-1)?.toFixed(1)} ms`;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-rush-'));
const key = randomBytes(20).toString('hex');
process.env.BENCH_SERVER = 'dist';
const probePort = await freePort();
const server = await startHeddle({
  dataDir,
  adminKey: key,
  env: { HEDDLE_LOG_LEVEL: 'warn', HEDDLE_PROBE_PORT: String(probePort) },
  cpuProfileDir: process.env.BENCH_RUSH_PROFILE_DIR,
});
try {
  const auth = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  const port = Number(new URL(server.url).port);
  await fetch(`${server.url}/call/start`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      start: {
        project_id: 'rush/rush',
        id: 'warm',
        trace_id: 'warm',
        op_name: 'rush',
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: {},
      },
    }),
  });
  const burst = await run(port, probePort, auth, 'burst');
  const slow = await run(port, probePort, auth, 'slow');
  const rows = [
    `| Burst: ${CLIENTS} POST /call/start at once, statuses | ${JSON.stringify(burst.statuses)} |`,
    `| Burst: /health | ${quantiles(burst.probes, '/health')} |`,
    `| Burst: /version | ${quantiles(burst.probes, '/version')} |`,
    `| Burst: probe port /health | ${quantiles(burst.probes, 'probe port /health')} |`,
    `| Burst: probe port /version | ${quantiles(burst.probes, 'probe port /version')} |`,
    `| Slowloris: ${CLIENTS} trickled-header connections for ${SLOW_S} s, how each ended | ${JSON.stringify(slow.statuses)} |`,
    `| Slowloris: /health | ${quantiles(slow.probes, '/health')} |`,
    `| Slowloris: /version | ${quantiles(slow.probes, '/version')} |`,
    `| Slowloris: probe port /health | ${quantiles(slow.probes, 'probe port /health')} |`,
    `| Slowloris: probe port /version | ${quantiles(slow.probes, 'probe port /version')} |`,
  ];
  const md = resultsMarkdown('Rush (compiled server, SQLite, default bounds)', ['What', 'Result'], rows);
  process.stdout.write(md);
  writeResults(md, { clients: CLIENTS, burst, slow: { statuses: slow.statuses, probes: slow.probes } }, 'rush');
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
