import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { quantile } from './lib/load.js';
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

/**
 * Alert evaluation lag (npm run bench:alerts, docs/alerts.md): one Heddle process on SQLite with the
 * default alert settings, one alert (error rate of the last call > 0.5) whose webhook is a receiver
 * on loopback. Each trial writes a failing call, then a succeeding one; the lag of each is the time
 * from the call's acknowledged `/call/end` to the webhook request (firing, then resolved) arriving.
 */

const TRIALS = Number(process.env.BENCH_ALERT_TRIALS ?? '10');
const PROJECT = 'bench/alerts';

const log = (message: string): void => {
  process.stderr.write(`[bench-alerts ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-alerts-'));
  const adminKey = `bench-${randomBytes(12).toString('hex')}`;
  let waiting: ((state: string) => void) | null = null;
  const hook = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      res.end('{}');
      waiting?.((JSON.parse(text) as { state: string }).state);
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  let server: ChildServer | null = null;
  try {
    server = await startHeddle({ dataDir, adminKey });
    const auth = `Basic ${Buffer.from(`api:${adminKey}`).toString('base64')}`;
    const post = async (url: string, body: unknown): Promise<void> => {
      const res = await fetch(`${server!.url}${url}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    };
    await post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'errors',
        builtin_object_class: 'AlertSpec',
        val: { spec: { metric: 'error_rate', threshold: 0.5, window: { calls: 1 }, webhooks: [{ url: hookUrl }] } },
      },
    });
    const lags: Record<'firing' | 'resolved', number[]> = { firing: [], resolved: [] };
    let n = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      for (const state of ['firing', 'resolved'] as const) {
        const id = `call-${(n += 1)}`;
        const at = new Date().toISOString();
        await post('/call/start', {
          start: { project_id: PROJECT, id, trace_id: id, op_name: 'chat', started_at: at, attributes: {}, inputs: {} },
        });
        const arrived = new Promise<string>((resolve) => (waiting = resolve));
        const end = { project_id: PROJECT, id, ended_at: at, summary: {} };
        await post('/call/end', { end: state === 'firing' ? { ...end, exception: 'RuntimeError: down' } : end });
        const sent = performance.now();
        const got = await arrived;
        if (got !== state) throw new Error(`expected ${state}, the webhook said ${got}`);
        lags[state].push(performance.now() - sent);
      }
      log(`trial ${trial + 1}/${TRIALS}`);
    }
    const all = [...lags.firing, ...lags.resolved];
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const row = (name: string, v: number[]) =>
      `| ${name} (${v.length}) | ${ms(quantile(v, 0.5))} / ${ms(quantile(v, 0.99))} / ${ms(Math.max(...v))} |`;
    const table = [
      '| Lag from the acknowledged call to the webhook | p50 / p99 / max |',
      '|---|---|',
      row('breach → firing', lags.firing),
      row('recovery → resolved', lags.resolved),
      row('all', all),
    ].join('\n');
    const info = machineInfo();
    process.stdout.write(`${table}\n\ntrials: ${TRIALS}, default alert settings\nmachine: ${JSON.stringify(info)}\n`);
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const summary = { p50: quantile(all, 0.5), p99: quantile(all, 0.99), max: Math.max(...all) };
    fs.writeFileSync(
      path.join(dir, `alerts-${stamp}.json`),
      `${JSON.stringify({ trials: TRIALS, machine: info, lags, summary }, null, 2)}\n`,
    );
  } finally {
    await server?.stop();
    hook.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
