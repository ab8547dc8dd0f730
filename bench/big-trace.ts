/**
 * A big trace in the trace view (issue 35): starts the compiled server (`node dist/main.js serve`;
 * build it with `npm run build:server`, and the web app with `npm --prefix web run build`) on a
 * fresh store, sends one trace of BENCH_TRACE_AGENTS (50) agents × BENCH_TRACE_PER_AGENT (1,000)
 * calls under one root through `/call/upsert_batch` (root → agent → step → llm/tool call, four
 * levels, ~300 bytes of inputs and of output each), then times:
 * - the trace view's API requests as the web app sends them: `/call/read` of the root, then
 *   `/calls/stream_query` of the trace with the tree's light columns, to the last byte
 *   (goal ≤ 2 s), and for comparison the same stream with whole calls (inputs and outputs);
 * - in Chromium (playwright-core): the trace page from its URL to the tree's first rows, the
 *   longest main-thread task meanwhile (PerformanceObserver 'longtask'; goal: no freeze, no task
 *   over ~200 ms), how many tree rows the DOM holds, and expanding an agent's subtree.
 * Median and p95 over BENCH_TRACE_RUNS (7) runs after one warm-up, on SQLite and, when PostgreSQL
 * can be had (test/helpers/postgres-server.ts), PostgreSQL (BENCH_TRACE_STORES=sqlite,postgres).
 * Writes bench/results/big-trace-<stamp>.{md,json}.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launch } from '../test/helpers/browser.js';
import { freshPostgresDatabase } from './lib/bench-database.js';
import { distBuilt } from '../test/ui/serve-ui.js';
import { LoadClient, quantile, runPool } from './lib/load.js';
import { startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, writeResults } from './lib/report.js';

const AGENTS = Number(process.env.BENCH_TRACE_AGENTS ?? 50);
const PER_AGENT = Number(process.env.BENCH_TRACE_PER_AGENT ?? 1000);
const RUNS = Number(process.env.BENCH_TRACE_RUNS ?? 7);
const STORES = (process.env.BENCH_TRACE_STORES ?? 'sqlite,postgres').split(',');
const UI = process.env.BENCH_TRACE_UI !== '0';
const ENTITY = 'bench';
const PROJECT_NAME = 'big-trace';
const PROJECT = `${ENTITY}/${PROJECT_NAME}`;
/** What web/src/api/calls.ts asks for the tree. */
const TREE_COLUMNS = ['id', 'op_name', 'display_name', 'parent_id', 'started_at', 'ended_at', 'exception', 'summary'];

const log = (s: string): void => void process.stderr.write(`[big-trace] ${s}\n`);
const r1 = (n: number): string => n.toFixed(1);

interface Item {
  start: Record<string, unknown>;
  end: Record<string, unknown>;
}

/** ~300 characters of text that differs per call. */
function prose(seed: number): string {
  const words = ['plan', 'search', 'the', 'index', 'for', 'refund', 'policy', 'and', 'answer', 'with', 'sources'];
  let s = '';
  for (let i = 0; s.length < 290; i += 1) s += `${words[(seed * 7 + i * 3) % words.length]} `;
  return s.trim();
}

/**
 * The trace: a root; under it AGENTS agents; each agent's PER_AGENT calls are the agent, its steps
 * and under each step 8 llm/tool calls. Start times are spread over ten minutes in tree order.
 */
function buildTrace(): { rootId: string; items: Item[]; firstAgentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const t0 = Date.now() - 3_600_000;
  let n = 0;
  const items: Item[] = [];
  const add = (parent: string | null, op: string, depth: number, inputs: unknown, output: unknown): string => {
    const i = n++;
    const id = `${traceId.slice(0, 12)}-${i.toString(16).padStart(8, '0')}`;
    const started = t0 + i * 12;
    const usage =
      op === 'llm'
        ? { 'gpt-4o-mini': { requests: 1, prompt_tokens: 250 + (i % 40), completion_tokens: 60 } }
        : undefined;
    items.push({
      start: {
        project_id: PROJECT,
        id,
        trace_id: traceId,
        parent_id: parent,
        op_name: `weave:///${PROJECT}/op/${op}:v${depth}`,
        started_at: new Date(started).toISOString(),
        attributes: { depth },
        inputs,
      },
      end: {
        project_id: PROJECT,
        id,
        ended_at: new Date(started + 5 + (i % 11)).toISOString(),
        output,
        summary: usage ? { usage } : {},
        ...(i % 97 === 5 ? { exception: 'TimeoutError: tool did not answer' } : {}),
      },
    });
    return id;
  };
  const rootId = add(null, 'run_team', 0, { task: prose(0) }, { answer: prose(1) });
  let firstAgentId = '';
  const perStep = 8;
  const steps = Math.max(1, Math.floor((PER_AGENT - 1) / (perStep + 1)));
  for (let a = 0; a < AGENTS; a += 1) {
    const agent = add(rootId, 'agent', 1, { name: `agent-${a}`, goal: prose(a) }, { result: prose(a + 1) });
    if (a === 0) firstAgentId = agent;
    let made = 1;
    for (let s = 0; s < steps && made < PER_AGENT; s += 1) {
      const step = add(agent, 'step', 2, { index: s, thought: prose(s) }, { decision: prose(s + 2) });
      made += 1;
      for (let c = 0; c < perStep && made < PER_AGENT; c += 1) {
        const llm = c % 2 === 0;
        add(
          step,
          llm ? 'llm' : 'tool',
          3,
          llm
            ? { messages: [{ role: 'user', content: prose(n) }], model: 'gpt-4o-mini' }
            : { query: prose(n), top_k: 5 },
          llm ? { choices: [{ message: { role: 'assistant', content: prose(n + 1) } }] } : { hits: [prose(n + 3)] },
        );
        made += 1;
      }
    }
    while (made < PER_AGENT) {
      add(agent, 'tool', 2, { query: prose(n) }, { hits: [prose(n + 1)] });
      made += 1;
    }
  }
  return { rootId, items, firstAgentId };
}

/**
 * Waits until the server uses under 5 % of a core over a second (its indexers have caught up with
 * the ingest), at most two minutes; returns the seconds waited.
 */
async function settle(server: ChildServer): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < 120_000) {
    const cpu0 = server.cpuSeconds();
    await new Promise((r) => setTimeout(r, 1000));
    if (server.cpuSeconds() - cpu0 < 0.05) break;
  }
  return (performance.now() - t0) / 1000;
}

async function ingest(client: LoadClient, items: Item[]): Promise<number> {
  const t0 = performance.now();
  const batches: string[] = [];
  for (let i = 0; i < items.length; i += 500) {
    const part = items.slice(i, i + 500);
    batches.push(
      JSON.stringify({
        batch: [
          ...part.map((c) => ({ mode: 'start', req: { start: c.start } })),
          ...part.map((c) => ({ mode: 'end', req: { end: c.end } })),
        ],
      }),
    );
  }
  await runPool(batches.length, 4, async (i) => void (await client.postOk('/call/upsert_batch', batches[i]!)));
  return (performance.now() - t0) / 1000;
}

interface ApiRun {
  read: number;
  stream: number;
  total: number;
  bytes: number;
  rows: number;
}

/** The trace view's requests, in its order: the anchor call, then the trace's tree rows. */
async function apiOnce(client: LoadClient, rootId: string, columns: string[] | null): Promise<ApiRun> {
  const t0 = performance.now();
  const read = await client.postOk(
    '/call/read',
    JSON.stringify({ project_id: PROJECT, id: rootId, include_costs: true }),
    true,
  );
  const traceId = (JSON.parse(read.text!) as { call: { trace_id: string } }).call.trace_id;
  const t1 = performance.now();
  const stream = await client.postOk(
    '/calls/stream_query',
    JSON.stringify({
      project_id: PROJECT,
      filter: { trace_ids: [traceId] },
      ...(columns ? { columns } : {}),
      sort_by: [{ field: 'started_at', direction: 'asc' }],
    }),
  );
  const t2 = performance.now();
  return { read: t1 - t0, stream: t2 - t1, total: t2 - t0, bytes: stream.bytes, rows: stream.lines };
}

interface UiRun {
  open: number;
  longest: number;
  longTasks: number;
  domRows: number;
  expand: number;
  expandLongest: number;
}

async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

async function uiOnce(page: Page, url: string, rootId: string, total: number): Promise<UiRun> {
  await page.goto('about:blank');
  await page.goto(`${url}/${PROJECT}/r/call/${rootId}`, { waitUntil: 'commit' });
  const label = `${total.toLocaleString('en-US')} calls`;
  const handle = await page.waitForFunction(
    (want) =>
      document.querySelectorAll('[role="treeitem"]').length > 0 && document.body.innerText.includes(want)
        ? performance.now()
        : false,
    label,
    { polling: 'raf', timeout: 120_000 },
  );
  const open = (await handle.jsonValue()) as number;
  // let the inputs of the selected root render, then read what the observer saw
  await page.getByRole('heading', { name: 'Inputs' }).waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
  const seen = await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[] };
    const tasks = w.__longTasks.splice(0);
    return {
      longest: Math.max(0, ...tasks),
      count: tasks.length,
      rows: document.querySelectorAll('[role="treeitem"]').length,
    };
  });
  // expand the first collapsed agent (or collapse then expand the first one) and time its children
  const toggle = page.locator('[role="treeitem"][aria-level="2"] button.tree-toggle').first();
  const firstAgent = page.locator('[role="treeitem"][aria-level="2"]').first();
  if ((await firstAgent.getAttribute('aria-expanded')) === 'true') {
    await toggle.click();
    await page.waitForFunction(
      () => document.querySelector('[role="treeitem"][aria-level="2"]')?.getAttribute('aria-expanded') === 'false',
    );
  }
  await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0));
  const t0 = await page.evaluate(() => performance.now());
  await toggle.click();
  const expanded = await page.waitForFunction(
    () => (document.querySelector('[role="treeitem"][aria-level="3"]') ? performance.now() : false),
    null,
    { polling: 'raf', timeout: 60_000 },
  );
  const expand = ((await expanded.jsonValue()) as number) - t0;
  await page.waitForTimeout(200);
  const expandLongest = await page.evaluate(() =>
    Math.max(0, ...(window as unknown as { __longTasks: number[] }).__longTasks.splice(0)),
  );
  return { open, longest: seen.longest, longTasks: seen.count, domRows: seen.rows, expand, expandLongest };
}

interface StoreResult {
  store: string;
  calls: number;
  ingestSeconds: number;
  light: ApiRun[];
  whole: ApiRun[];
  ui: UiRun[];
  serverPeakRss: number | null;
}

async function runStore(store: string): Promise<StoreResult | null> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-big-trace-'));
  const key = randomBytes(20).toString('hex');
  // BENCH_TRACE_WEB_DIR: another build of the web app (an older commit's, to compare)
  const env: Record<string, string> = process.env.BENCH_TRACE_WEB_DIR
    ? { HEDDLE_WEB_DIR: process.env.BENCH_TRACE_WEB_DIR }
    : {};
  const db = store === 'postgres' ? await freshPostgresDatabase('bigtrace') : null;
  if (store === 'postgres') {
    if (db === null) {
      log('PostgreSQL unavailable: skipped');
      return null;
    }
    env.HEDDLE_DATABASE_URL = db.url;
  }
  process.env.BENCH_SERVER = 'dist';
  let server: ChildServer | null = null;
  try {
    server = await startHeddle({ dataDir, adminKey: key, env });
    const client = new LoadClient(server.url, key, 4);
    const trace = buildTrace();
    log(`${store}: sending a ${trace.items.length.toLocaleString('en-US')}-call trace`);
    const ingestSeconds = await ingest(client, trace.items);
    log(`${store}: ingested in ${ingestSeconds.toFixed(1)} s`);
    log(`${store}: background work settled after ${(await settle(server)).toFixed(1)} s`);
    const light: ApiRun[] = [];
    const whole: ApiRun[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const l = await apiOnce(client, trace.rootId, TREE_COLUMNS);
      const w = await apiOnce(client, trace.rootId, null);
      if (l.rows !== trace.items.length)
        throw new Error(`the trace streamed ${l.rows} rows, not ${trace.items.length}`);
      if (i > 0) {
        light.push(l);
        whole.push(w);
      }
      log(
        `${store}: API light ${r1(l.total)} ms (${(l.bytes / 1e6).toFixed(1)} MB), whole ${r1(w.total)} ms (${(w.bytes / 1e6).toFixed(1)} MB)${i === 0 ? ' (warm-up)' : ''}`,
      );
    }
    const ui: UiRun[] = [];
    if (UI) {
      const browser = await launch();
      try {
        const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        await ctx.addInitScript(() => {
          const w = window as unknown as { __longTasks: number[] };
          w.__longTasks = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) w.__longTasks.push(e.duration);
          }).observe({ type: 'longtask', buffered: true });
        });
        const page = await ctx.newPage();
        await signIn(page, server.url, key);
        for (let i = 0; i <= RUNS; i += 1) {
          const u = await uiOnce(page, server.url, trace.rootId, trace.items.length);
          if (i > 0) ui.push(u);
          log(
            `${store}: UI open ${r1(u.open)} ms, longest task ${r1(u.longest)} ms (${u.longTasks} long), ` +
              `${u.domRows} rows in the DOM, expand ${r1(u.expand)} ms (longest ${r1(u.expandLongest)})${i === 0 ? ' (warm-up)' : ''}`,
          );
        }
      } finally {
        await browser.close();
      }
    }
    client.close();
    return { store, calls: trace.items.length, ingestSeconds, light, whole, ui, serverPeakRss: server.peakRss() };
  } finally {
    await server?.stop();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const stat = (xs: number[]): string => (xs.length === 0 ? '—' : `${r1(quantile(xs, 0.5))} / ${r1(quantile(xs, 0.95))}`);

async function main(): Promise<void> {
  if (UI && !distBuilt())
    throw new Error('web/dist is missing: run `npm --prefix web run build` (or BENCH_TRACE_UI=0)');
  const results: StoreResult[] = [];
  for (const store of STORES) {
    const r = await runStore(store);
    if (r) results.push(r);
  }
  const lines = [
    `# A big trace in the trace view (compiled server)`,
    '',
    `One trace of ${results[0]?.calls.toLocaleString('en-US') ?? '?'} calls (${AGENTS} agents × ${PER_AGENT}, four levels, ~300 B inputs and output each), sent through /call/upsert_batch; median / p95 of ${RUNS} runs after one warm-up, ms.`,
    '',
    '| Store | Ingest | Trace view API (read + tree stream) | its tree stream | whole calls instead | UI: open to tree rows | longest main-thread task while opening | tree rows in the DOM | expand an agent (longest task) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.ingestSeconds.toFixed(1)} s | ${stat(r.light.map((x) => x.total))} (${(r.light[0]!.bytes / 1e6).toFixed(1)} MB) | ${stat(r.light.map((x) => x.stream))} | ${stat(r.whole.map((x) => x.total))} (${(r.whole[0]!.bytes / 1e6).toFixed(1)} MB) | ${stat(r.ui.map((x) => x.open))} | ${stat(r.ui.map((x) => x.longest))} | ${r.ui.length ? Math.max(...r.ui.map((x) => x.domRows)) : '—'} | ${stat(r.ui.map((x) => x.expand))} (${stat(r.ui.map((x) => x.expandLongest))}) |`,
    ),
    '',
    `Goals: API ≤ 2 s; UI without freezing (no main-thread task over ~200 ms). Machine: ${JSON.stringify(machineInfo())}`,
    '',
  ];
  const md = lines.join('\n');
  process.stdout.write(md);
  writeResults(md, results, 'big-trace');
}

await main();
