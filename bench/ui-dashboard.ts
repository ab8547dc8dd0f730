/**
 * Dashboard benchmark (`npx tsx bench/ui-dashboard.ts`, `npm run bench:ui-dashboard`, part of
 * `npm run bench`; not a timed test). Seeds a SQLite store straight through the store API as
 * bench/ui.ts does (1M calls in 5-call traces over 30 days at BENCH_SCALE=1, `seedStore` of
 * bench/lib/query-phases.ts), starts Heddle in its own process (`dist/main.js serve`) and opens the
 * dashboard over the whole 30 days in Debian's Chromium through playwright-core:
 *
 * - time to chart ready: navigation start until the totals show every stored call and the four
 *   charts have drawn their SVG (goal ≤ 1 s), median of BENCH_UI_RUNS (default 5) after one warm-up;
 * - the same grouped by op and status (`group=op,status`);
 * - the `/calls/stats` request the page sends, timed alone over HTTP (the server's share of the above);
 * - the raw limit: the same numbers aggregated inside SQLite (GROUP BY bucket; latencies fetched and
 *   sorted per bucket for the percentiles; usage through json_each), read straight from the file —
 *   what an SQL-side `/calls/stats` could approach.
 *
 * Knobs: BENCH_SCALE (stored calls = 1,000,000 × scale), BENCH_UI_RUNS. Needs `npm run build` and
 * Chromium. Writes bench/results/ui-dashboard-<stamp>.{md,json}.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { basicAuthHeader, startServerProcess } from '../test/helpers/server-process.js';
import { launch } from '../test/helpers/browser.js';
import { distBuilt, serveUi } from '../test/ui/serve-ui.js';
import { quantile } from './lib/load.js';
import { REPO_ROOT } from './lib/processes.js';
import { seedStore } from './lib/query-phases.js';
import { machineInfo } from './lib/report.js';

const scale = Number(process.env.BENCH_SCALE ?? '1');
if (!(scale > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);
const RUNS = Number(process.env.BENCH_UI_RUNS ?? '5');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('BENCH_UI_RUNS must be a positive integer');
const STORED = Math.max(1000, Math.round(1_000_000 * scale));
const PROJECT = 'bench/stored';
// seedStore spreads its traces over 30 days from 2025-05-01 (bench/lib/query-phases.ts)
const FROM = '2025-05-01';
const TO = '2025-05-31';

const log = (msg: string) => console.error(`[bench:ui-dashboard ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const median = (xs: number[]) => quantile(xs, 0.5);
const r1 = (x: number) => Math.round(x * 10) / 10;

/** performance.now() in the page once the totals read `calls` and four charts have drawn. */
async function chartReady(page: Page, calls: number): Promise<number> {
  const handle = await page.waitForFunction(
    (want) => {
      const dd = document.querySelector('.totals dd');
      if (!dd || (dd.textContent ?? '').replace(/\D/g, '') !== String(want)) return false;
      const drawn = document.querySelectorAll(
        'figure.chart svg.recharts-surface .recharts-bar-rectangle, figure.chart svg.recharts-surface .recharts-line-curve',
      );
      if (document.querySelectorAll('figure.chart svg.recharts-surface').length < 4 || drawn.length === 0) return false;
      return performance.now();
    },
    calls,
    { polling: 'raf', timeout: 120_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** The page's numbers computed inside SQLite, straight from the file: the raw limit (ms, and the call count). */
function rawAggregate(file: string): { ms: number; calls: number } {
  const db = new Database(file, { readonly: true });
  try {
    const from = Date.parse(`${FROM}T00:00:00Z`) * 1000;
    const to = Date.parse(`${TO}T00:00:00Z`) * 1000;
    const day = 86_400 * 1_000_000;
    const where = 'project_id = ? AND started_at >= ? AND started_at < ? AND deleted_at IS NULL';
    const t0 = performance.now();
    const counts = db
      .prepare(
        `SELECT (started_at - ?) / ? AS b, count(*) AS n, sum(exception IS NOT NULL) AS errors FROM calls WHERE ${where} GROUP BY b`,
      )
      .all(from, day, PROJECT, from, to) as { b: number; n: number; errors: number }[];
    const latencies = new Map<number, number[]>();
    const rows = db
      .prepare(
        `SELECT (started_at - ?) / ? AS b, (ended_at - started_at) / 1000 AS ms FROM calls WHERE ${where} AND ended_at IS NOT NULL`,
      )
      .raw()
      .iterate(from, day, PROJECT, from, to) as Iterable<[number, number]>;
    for (const [b, ms] of rows) {
      let xs = latencies.get(b);
      if (!xs) latencies.set(b, (xs = []));
      xs.push(ms);
    }
    for (const xs of latencies.values()) {
      xs.sort((a, c) => a - c);
      for (const p of [0.5, 0.95, 0.99]) quantile(xs, p);
    }
    db.prepare(
      `SELECT (started_at - ?) / ? AS b, u.key AS model, sum(json_extract(u.value, '$.total_tokens')) AS tokens
       FROM calls, json_each(calls.summary, '$.usage') AS u WHERE ${where} GROUP BY b, model`,
    ).all(from, day, PROJECT, from, to);
    return { ms: performance.now() - t0, calls: counts.reduce((n, r) => n + r.n, 0) };
  } finally {
    db.close();
  }
}

async function main() {
  if (!distBuilt()) throw new Error('web/dist is missing: run `npm run build`');
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => void cleanups.push(fn) };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-dash-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  try {
    log(`seeding ${STORED.toLocaleString('en-US')} calls`);
    const seed = await seedStore(dataDir, STORED, 10_000);
    log(`seeded at ${Math.round(seed.result.perSecond).toLocaleString('en-US')} rows/s`);
    const server = await startServerProcess(t, { dataDir, readyTimeoutMs: 120_000 });
    const key = await server.createKey('bench', { user: 'bench' });
    const ui = await serveUi(t, server.url, [PROJECT]);
    const browser = await launch();
    cleanups.push(() => browser.close());
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(ui + '/');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();

    const open = async (name: string, query: string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i <= RUNS; i += 1) {
        await page.goto('about:blank');
        await page.goto(`${ui}/${PROJECT}/weave/dashboard?from=${FROM}&to=${TO}${query}`, { waitUntil: 'commit' });
        const ms = await chartReady(page, STORED);
        if (i > 0) out.push(ms); // run 0 warms the page cache and the browser's HTTP cache
        log(`${name}: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
      }
      return out;
    };
    const plain = await open('dashboard', '');
    const grouped = await open('dashboard by op and status', '&group=op,status');

    // the page's own request, alone: the server's share of the time to chart ready
    const body = {
      project_id: PROJECT,
      start: `${FROM}T00:00:00Z`,
      end: `${TO}T00:00:00Z`,
      granularity: 86_400,
      filter: null,
      call_metrics: [
        { metric: 'call_count', aggregations: ['sum'] },
        { metric: 'error_count', aggregations: ['sum'] },
        { metric: 'latency_ms', aggregations: [], percentiles: [50, 95, 99] },
      ],
      usage_metrics: [
        { metric: 'total_tokens', aggregations: ['sum'] },
        { metric: 'total_cost', aggregations: ['sum'] },
      ],
    };
    const api: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/calls/stats`, {
        method: 'POST',
        headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { call_buckets?: { sum_call_count: number }[] };
      if (!res.ok) throw new Error(`/calls/stats: ${res.status} ${JSON.stringify(json)}`);
      const ms = performance.now() - t0;
      const total = (json.call_buckets ?? []).reduce((n, b) => n + b.sum_call_count, 0);
      if (total !== STORED) throw new Error(`/calls/stats counted ${total} calls, stored ${STORED}`);
      if (i > 0) api.push(ms);
      log(`/calls/stats alone: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    const raw: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const r = rawAggregate(path.join(dataDir, 'heddle.sqlite'));
      if (r.calls !== STORED) throw new Error(`raw aggregate counted ${r.calls} calls, stored ${STORED}`);
      if (i > 0) raw.push(r.ms);
      log(`raw SQLite aggregate: ${r1(r.ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    const machine = machineInfo();
    const verdict = (v: number, goal: number) => (v <= goal ? 'met' : '**not met**');
    const n = STORED.toLocaleString('en-US');
    const rows = [
      [
        `Dashboard over ${n} calls, chart ready (median)`,
        `${r1(median(plain))} ms`,
        '≤ 1 s',
        verdict(median(plain), 1000),
      ],
      [
        `Dashboard over ${n} calls grouped by op and status (median)`,
        `${r1(median(grouped))} ms`,
        '≤ 1 s',
        verdict(median(grouped), 1000),
      ],
      [`/calls/stats alone, the page's request (median)`, `${r1(median(api))} ms`, '—', 'server share'],
      [
        'Raw limit: the same aggregates inside SQLite, read from the file (median)',
        `${r1(median(raw))} ms`,
        '—',
        'reference',
      ],
    ];
    const md = [
      '# Dashboard benchmark (bench/ui-dashboard.ts)',
      '',
      `${n} calls stored (BENCH_SCALE=${scale}) over 30 days, the dashboard over all 30 (daily buckets); median of ${RUNS} runs after one warm-up.`,
      `Machine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}, load at start ${machine.load_at_start}; commit ${machine.commit}.`,
      '',
      '| Measure | Result | Goal | |',
      '|---|---:|---|---|',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
      `Runs (ms): dashboard ${plain.map(r1).join(', ')}; grouped ${grouped.map(r1).join(', ')}; /calls/stats ${api.map(r1).join(', ')}; raw ${raw.map(r1).join(', ')}.`,
    ].join('\n');
    console.log(md);
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    fs.writeFileSync(path.join(dir, `ui-dashboard-${stamp}.md`), md + '\n');
    fs.writeFileSync(
      path.join(dir, `ui-dashboard-${stamp}.json`),
      JSON.stringify({ machine, scale, stored: STORED, runs: RUNS, plain, grouped, api, raw }, null, 2) + '\n',
    );
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

await main();
