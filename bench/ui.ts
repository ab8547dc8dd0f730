/**
 * The web UI benchmark (`npx tsx bench/ui.ts`, part of `npm run bench`; not a timed test). Seeds a
 * SQLite store straight through the store API (1M calls in 5-call traces at BENCH_SCALE=1, plus one
 * trace of 10,000 calls), starts Heddle in its own process (`dist/main.js serve`, as `npm start`
 * runs it) and drives the built app (web/dist) in Debian's Chromium through playwright-core:
 *
 * - time to first rows on the traces page, navigation start to the first rendered row (goal ≤ 1 s);
 * - a filter change: the op filter set to an op that 0.5 % of traces have, Enter to the first
 *   matching rows (goal ≤ 500 ms);
 * - opening the 10,000-call trace from its URL to the tree's rows (goal ≤ 2 s);
 * - the traces page with two input columns and a feedback column, to the first rows (goal ≤ 1 s), and
 *   a column change that needs the inputs, the chooser's click to the first filled cell (goal ≤ 500 ms);
 * - two traces of BENCH_UI_COMPARE (1,000) calls compared side by side, from the URL to the calls and
 *   their traces op by op on screen (goal ≤ 1 s);
 * - live-tail delay: a call posted to /call/start until its row shows, p99 over BENCH_UI_LIVE calls
 *   (goal ≤ 1 s); reported as n/a while the server lacks the live-tail endpoint (the test shim's
 *   polling stand-in is not what ships);
 * - the initial JavaScript (the entry script and its modulepreloads in index.html), gzip (goal ≤ 300 KB).
 *
 * Knobs: BENCH_SCALE (stored calls = 1,000,000 × scale), BENCH_UI_RUNS (runs per measure, median
 * reported; default 5), BENCH_UI_LIVE (live-tail calls; default 30), BENCH_UI_TRACE (calls in the big
 * trace; default 10,000), BENCH_UI_COMPARE (calls in each compared trace; default 1,000). Needs `npm run build` and Chromium. Writes bench/results/ui-<stamp>.{md,json}.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { formatMicros, parseIsoMicros } from '../src/domain/time.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { basicAuthHeader, startServerProcess } from '../test/helpers/server-process.js';
import { launch } from '../test/helpers/browser.js';
import { DIST, distBuilt, serveUi } from '../test/ui/serve-ui.js';
import { quantile } from './lib/load.js';
import { REPO_ROOT } from './lib/processes.js';
import { machineInfo } from './lib/report.js';
import { seedStore } from './lib/query-phases.js';
import { toParts, type GenCall } from './lib/workload.js';

const scale = Number(process.env.BENCH_SCALE ?? '1');
if (!(scale > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);
const intEnv = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const STORED = Math.max(1000, Math.round(1_000_000 * scale));
const RUNS = intEnv('BENCH_UI_RUNS', 5);
const LIVE = intEnv('BENCH_UI_LIVE', 30);
const TRACE_CALLS = intEnv('BENCH_UI_TRACE', 10_000);
const PROJECT = 'bench/stored';
/** Calls in each of the two traces the compare view opens (issue 33: two 1,000-call traces). */
const COMPARE_CALLS = intEnv('BENCH_UI_COMPARE', 1000);
/** The first id number of each compared trace, past the big trace's ids. */
const COMPARED = [TRACE_CALLS + 1, TRACE_CALLS + COMPARE_CALLS + 1];

const log = (msg: string) => console.error(`[bench:ui ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const median = (xs: number[]) => quantile(xs, 0.5);
const r1 = (x: number) => Math.round(x * 10) / 10;

/** One trace of `count` calls: a root, 100 steps under it, the rest spread under the steps; ids from `first`. */
function bigTrace(count: number, first = 1): GenCall[] {
  const t0 = Date.UTC(2025, 3, 30) * 1000;
  const hex = (n: number) => n.toString(16).padStart(12, '0');
  const id = (n: number) => `0194f3a2-0000-7000-8000-${hex(n + first - 1)}`;
  const op = (name: string) => `weave:///${PROJECT}/op/${name}:${'A'.repeat(43)}`;
  const steps = Math.min(100, count - 1);
  const calls: GenCall[] = [];
  for (let i = 0; i < count; i += 1) {
    const parent = i === 0 ? null : i <= steps ? 0 : 1 + ((i - steps - 1) % steps);
    const started = t0 + i * 1000;
    const name = i === 0 ? 'big_batch' : i <= steps ? 'step' : 'item';
    calls.push({
      start: {
        project_id: PROJECT,
        id: id(i + 1),
        op_name: op(name),
        display_name: null,
        trace_id: id(1),
        parent_id: parent === null ? null : id(parent + 1),
        thread_id: null,
        turn_id: null,
        started_at: formatMicros(started),
        attributes: {},
        inputs: { i },
        wb_user_id: null,
        wb_run_id: null,
        wb_run_step: null,
      },
      end: {
        project_id: PROJECT,
        id: id(i + 1),
        ended_at: formatMicros(i === 0 ? t0 + count * 1000 + 5000 : started + 800),
        exception: null,
        output: { ok: true },
        summary: {},
        wb_run_step_end: null,
      },
    });
  }
  return calls;
}

/** The entry script and its modulepreloads from web/dist/index.html, raw and gzip bytes. */
function initialJs(): { files: string[]; raw: number; gzip: number } {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const srcs = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  let raw = 0;
  let gzip = 0;
  for (const src of srcs) {
    const buf = fs.readFileSync(path.join(DIST, src.replace(/^\//, '')));
    raw += buf.length;
    gzip += gzipSync(buf, { level: 9 }).length;
  }
  return { files: srcs, raw, gzip };
}

/** Resolves with performance.now() in the page when `.body-row` rows match `pred`. */
async function rowsWhen(page: Page, text: string | null, timeout = 60_000): Promise<number> {
  const handle = await page.waitForFunction(
    (want) => {
      const rows = [...document.querySelectorAll('.body-row')];
      if (rows.length === 0) return false;
      if (want !== null && !rows.every((r) => (r.textContent ?? '').includes(want))) return false;
      return performance.now();
    },
    text,
    { polling: 'raf', timeout },
  );
  return (await handle.jsonValue()) as number;
}

async function main() {
  if (!distBuilt()) throw new Error('web/dist is missing: run `npm run build`');
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => void cleanups.push(fn) };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-ui-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  try {
    log(`seeding ${STORED.toLocaleString('en-US')} calls and a ${TRACE_CALLS.toLocaleString('en-US')}-call trace`);
    const seed = await seedStore(dataDir, STORED, 10_000);
    const store = new SqliteStore({ file: path.join(dataDir, 'heddle.sqlite') });
    try {
      // the big trace, then the two traces the compare view puts side by side
      for (const trace of [bigTrace(TRACE_CALLS), ...COMPARED.map((first) => bigTrace(COMPARE_CALLS, first))])
        for (let i = 0; i < trace.length; i += 5000)
          await store.calls.write(toParts(trace.slice(i, i + 5000), 'bench-user', (iso) => parseIsoMicros(iso)!));
    } finally {
      await store.close();
    }
    const bigTraceRoot = bigTrace(1)[0]!.start.id;
    const comparedRoots = COMPARED.map((first) => bigTrace(1, first)[0]!.start.id);
    log(`seeded at ${Math.round(seed.result.perSecond).toLocaleString('en-US')} rows/s`);

    const server = await startServerProcess(t, { dataDir, readyTimeoutMs: 120_000 });
    const key = await server.createKey('bench', { user: 'bench' });
    const sessionProbe = await fetch(`${server.url}/auth/session`, { headers: { accept: 'application/json' } });
    await sessionProbe.arrayBuffer();
    const realSession = sessionProbe.status !== 404;
    const ui = await serveUi(t, server.url, [PROJECT]);
    const browser = await launch();
    cleanups.push(() => browser.close());
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(ui + '/');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();

    // 1. time to first rows, cold navigation each run (the browser cache keeps the assets warm after run 1)
    const firstRows: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto('about:blank');
      await page.goto(`${ui}/${PROJECT}/weave`, { waitUntil: 'commit' });
      const ms = await rowsWhen(page, null);
      if (i > 0) firstRows.push(ms); // run 0 warms the server's page cache and the HTTP cache
      log(`first rows: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    // 2. filter change: op = the rare root op (0.5 % of traces), typed and applied with Enter
    const filter: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto(`${ui}/${PROJECT}/weave`);
      await rowsWhen(page, null);
      const input = page.getByLabel('Op name');
      await input.fill('evaluate');
      const t0 = await page.evaluate(() => performance.now());
      await input.press('Enter');
      const ms = (await rowsWhen(page, 'evaluate')) - t0;
      if (i > 0) filter.push(ms);
      log(`filter change: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    // 3. the big trace from its URL to the tree's rows
    const openTrace: number[] = [];
    const label = `${TRACE_CALLS.toLocaleString('en-US')} calls`;
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto('about:blank');
      await page.goto(`${ui}/${PROJECT}/r/call/${bigTraceRoot}`, { waitUntil: 'commit' });
      const handle = await page.waitForFunction(
        (want) =>
          document.querySelectorAll('[role="treeitem"]').length > 0 && document.body.innerText.includes(want)
            ? performance.now()
            : false,
        label,
        { polling: 'raf', timeout: 120_000 },
      );
      const ms = (await handle.jsonValue()) as number;
      if (i > 0) openTrace.push(ms);
      log(`open ${label} trace: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    // 5. a view of two input columns and a feedback column (issue 33): time to first rows, cold
    const viewCols = ['op_name', 'inputs.question', 'inputs.config.max_steps', 'feedback.reactions', 'started_at'];
    const viewUrl = `${ui}/${PROJECT}/weave?view=builtin&cols=${encodeURIComponent(JSON.stringify(viewCols))}`;
    const viewRows: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto('about:blank');
      await page.goto(viewUrl, { waitUntil: 'commit' });
      const ms = await rowsWhen(page, null);
      if (i > 0) viewRows.push(ms);
      log(`first rows, input and feedback columns: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    // 6. a column change that needs the inputs: from the built-in columns, "Show inputs.question" in
    // the chooser until the first row's cell in that column holds a value
    const columnChange: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto(`${ui}/${PROJECT}/weave?view=builtin`);
      await rowsWhen(page, null);
      await page.getByRole('button', { name: /^Columns/ }).click();
      const show = page.getByRole('button', { name: 'Show inputs.question', exact: true });
      await show.waitFor({ timeout: 60_000 });
      const t0 = await page.evaluate(() => performance.now());
      await show.click();
      const handle = await page.waitForFunction(
        () => {
          const heads = [...document.querySelectorAll('.grid-head [role="columnheader"]')];
          const col = heads.findIndex((h) => (h.textContent ?? '').startsWith('inputs.question'));
          const row = document.querySelector('.body-row');
          const cell = col >= 0 && row ? row.querySelectorAll('[role="cell"]')[col] : null;
          return cell && (cell.textContent ?? '—') !== '—' ? performance.now() : false;
        },
        null,
        { polling: 'raf', timeout: 60_000 },
      );
      const ms = ((await handle.jsonValue()) as number) - t0;
      if (i > 0) columnChange.push(ms);
      log(`column change (first input column): ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
    }

    // 7. compare two 1,000-call traces (issue 33): from the URL to their traces compared op by op
    const compareUrl = `${ui}/${PROJECT}/r/compare?ids=${comparedRoots.join(',')}`;
    const compareTraces: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto('about:blank');
      await page.goto(compareUrl, { waitUntil: 'commit' });
      const handle = await page.waitForFunction(
        // the traces op by op are the last part to fill (unchanged input and output paths stay folded)
        () =>
          document.querySelector('table[aria-label="Traces compared"] tbody tr') &&
          /^Traces \d+ of \d+ ops differ/m.test(document.body.innerText)
            ? performance.now()
            : false,
        null,
        { polling: 'raf', timeout: 120_000 },
      );
      const ms = (await handle.jsonValue()) as number;
      if (i > 0) compareTraces.push(ms);
      log(
        `compare two ${COMPARE_CALLS.toLocaleString('en-US')}-call traces: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`,
      );
    }

    // 4. live tail: a call started now until its row shows in the live table
    let live: { p50: number; p99: number; max: number } | null = null;
    if (realSession) {
      await page.goto(`${ui}/${PROJECT}/weave?live=true`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await rowsWhen(page, null);
      const delays: number[] = [];
      for (let i = 0; i < LIVE; i += 1) {
        const name = `live_probe_${i}_${Date.now().toString(36)}`;
        const id = `0194f3a2-ffff-7000-8000-${String(i + 1).padStart(12, '0')}`;
        const t0 = Date.now();
        const res = await fetch(`${server.url}/call/start`, {
          method: 'POST',
          headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
          body: JSON.stringify({
            start: {
              project_id: PROJECT,
              id,
              trace_id: id,
              op_name: name,
              started_at: new Date().toISOString(),
              inputs: {},
              attributes: {},
            },
          }),
        });
        if (!res.ok) throw new Error(`call/start: ${res.status} ${await res.text()}`);
        await page.locator('.body-row', { hasText: name }).waitFor({ timeout: 30_000 });
        delays.push(Date.now() - t0);
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 300));
      }
      live = { p50: quantile(delays, 0.5), p99: quantile(delays, 0.99), max: Math.max(...delays) };
      log(`live tail over ${LIVE} calls: p50 ${live.p50} ms, p99 ${live.p99} ms`);
    } else log('live tail: n/a — the server has no live-tail endpoint yet (GET /auth/session answers 404)');

    const js = initialJs();
    const machine = machineInfo();
    const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
    const verdict = (v: number, goal: number) => (v <= goal ? 'met' : '**not met**');
    const rows = [
      [
        'Time to first rows, traces page (median)',
        `${r1(median(firstRows))} ms`,
        '≤ 1 s',
        verdict(median(firstRows), 1000),
      ],
      ['Filter change to a 0.5 % op (median)', `${r1(median(filter))} ms`, '≤ 500 ms', verdict(median(filter), 500)],
      [
        `Open a ${TRACE_CALLS.toLocaleString('en-US')}-call trace (median)`,
        `${r1(median(openTrace))} ms`,
        '≤ 2 s',
        verdict(median(openTrace), 2000),
      ],
      [
        'Time to first rows, two input columns and a feedback column (median)',
        `${r1(median(viewRows))} ms`,
        '≤ 1 s',
        verdict(median(viewRows), 1000),
      ],
      [
        'Column change: the first input column shown (median)',
        `${r1(median(columnChange))} ms`,
        '≤ 500 ms',
        verdict(median(columnChange), 500),
      ],
      [
        `Compare two ${COMPARE_CALLS.toLocaleString('en-US')}-call traces (median)`,
        `${r1(median(compareTraces))} ms`,
        '≤ 1 s',
        verdict(median(compareTraces), 1000),
      ],
      live
        ? [
            `Live-tail delay over ${LIVE} calls, p50 / p99`,
            `${live.p50} / ${live.p99} ms`,
            '≤ 1 s p99',
            verdict(live.p99, 1000),
          ]
        : ['Live-tail delay p99', 'n/a — endpoint missing', '≤ 1 s p99', 'not measured'],
      ['Initial JavaScript, gzip (raw)', `${kb(js.gzip)} (${kb(js.raw)})`, '≤ 300 KB', verdict(js.gzip, 300 * 1024)],
    ];
    const md = [
      `# UI benchmark (bench/ui.ts)`,
      '',
      `${STORED.toLocaleString('en-US')} calls stored (BENCH_SCALE=${scale}) plus a ${TRACE_CALLS.toLocaleString('en-US')}-call trace; median of ${RUNS} runs after one warm-up; ` +
        `${realSession ? 'app served by Heddle' : 'app served through the test shim (server without session endpoints)'}.`,
      `Machine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}, load at start ${machine.load_at_start}; commit ${machine.commit}.`,
      '',
      '| Measure | Result | Goal | |',
      '|---|---:|---|---|',
      ...rows.map((r) => `| ${r.join(' | ')} |`),
      '',
      `Runs (ms): first rows ${firstRows.map(r1).join(', ')}; filter ${filter.map(r1).join(', ')}; trace ${openTrace.map(r1).join(', ')}.`,
      `Initial scripts: ${js.files.join(', ')}.`,
    ].join('\n');
    console.log(md);
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    fs.writeFileSync(path.join(dir, `ui-${stamp}.md`), md + '\n');
    fs.writeFileSync(
      path.join(dir, `ui-${stamp}.json`),
      JSON.stringify(
        {
          machine,
          scale,
          stored: STORED,
          runs: RUNS,
          firstRows,
          filter,
          openTrace,
          viewRows,
          columnChange,
          compareTraces,
          live,
          js,
          realSession,
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

await main();
