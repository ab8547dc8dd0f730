/**
 * Evaluation comparison benchmark (`npx tsx bench/ui-evals.ts`, part of `npm run bench`; not a timed
 * test). Writes two declarative-shaped evaluations of BENCH_EVAL_ROWS rows each (default 1,000:
 * a predict_and_score per row with a predict and two scorer children, as the Python client writes
 * them) through `/call/upsert_batch` to Heddle in its own process (`dist/main.js serve`), then opens
 * the compare page of the two in Debian's Chromium and measures navigation start until the
 * leaderboard and the first rows are rendered (goal ≤ 1 s), median of BENCH_UI_RUNS (default 5)
 * after one warm-up. Also times ordering the rows by the largest score difference (the select
 * change to the differing row first), once the leaderboard's costs (a second query) have arrived. Needs `npm run build` and Chromium; writes
 * bench/results/ui-evals-<stamp>.{md,json}.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { basicAuthHeader, startServerProcess } from '../test/helpers/server-process.js';
import { launch } from '../test/helpers/browser.js';
import { distBuilt, serveUi } from '../test/ui/serve-ui.js';
import { quantile } from './lib/load.js';
import { REPO_ROOT } from './lib/processes.js';
import { machineInfo } from './lib/report.js';

const intEnv = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const ROWS = intEnv('BENCH_EVAL_ROWS', 1000);
const RUNS = intEnv('BENCH_UI_RUNS', 5);
const PROJECT = 'bench/evals';
const log = (msg: string) => console.error(`[bench:ui-evals ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const r1 = (x: number) => Math.round(x * 10) / 10;

/** The calls of one evaluation; `wrongEvery` rows answer wrongly (so the two runs differ there). */
function evaluationCalls(n: number, model: string, wrongEvery: number): unknown[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const t0 = Date.UTC(2026, 10, 20) + n * 3_600_000;
  const id = (k: number) => `0194f3a9-${String(n).padStart(4, '0')}-7000-8000-${String(k).padStart(12, '0')}`;
  const op = (name: string) => `weave:///${PROJECT}/op/${name}:bench${name.length}`;
  const evalRef = `weave:///${PROJECT}/object/bench-eval:e1`;
  const modelRef = `weave:///${PROJECT}/object/${model}:m1`;
  const out: unknown[] = [];
  const call = (c: { id: string; op: string; parent: string | null; at: number; inputs: unknown; output: unknown }) => {
    out.push({
      mode: 'start',
      req: {
        start: {
          project_id: PROJECT,
          id: c.id,
          op_name: c.op,
          trace_id: id(0),
          parent_id: c.parent,
          started_at: iso(c.at),
          inputs: c.inputs,
          attributes: {},
        },
      },
    });
    out.push({
      mode: 'end',
      req: { end: { project_id: PROJECT, id: c.id, ended_at: iso(c.at + 50), output: c.output, summary: {} } },
    });
  };
  call({
    id: id(0),
    op: op('Evaluation.evaluate'),
    parent: null,
    at: t0,
    inputs: { self: evalRef, model: modelRef },
    output: {},
  });
  for (let r = 0; r < ROWS; r++) {
    const at = t0 + 10 + r * 10;
    const example = { question: `Question ${r}: what is ${r} + ${r}?`, expected: String(2 * r) };
    const answer = r % wrongEvery === 0 ? 'no idea' : String(2 * r);
    const ok = answer === example.expected;
    const scores = { exact_match: ok, judge: { score: ok ? 8 + (r % 3) : 2 } };
    const pas = id(1 + r * 4);
    call({
      id: pas,
      op: op('Evaluation.predict_and_score'),
      parent: id(0),
      at,
      inputs: { self: evalRef, model: modelRef, example },
      output: { output: answer, scores, model_latency: 0.1 },
    });
    call({
      id: id(2 + r * 4),
      op: op('Model.predict'),
      parent: pas,
      at: at + 1,
      inputs: { self: modelRef, question: example.question },
      output: answer,
    });
    call({ id: id(3 + r * 4), op: op('exact_match'), parent: pas, at: at + 2, inputs: { output: answer }, output: ok });
    call({
      id: id(4 + r * 4),
      op: op('judge.score'),
      parent: pas,
      at: at + 3,
      inputs: { output: answer },
      output: scores.judge,
    });
  }
  return out;
}

/** performance.now() when the leaderboard has its rows and the rows table shows `firstText` first. */
async function readyAt(page: Page, firstText: string | null): Promise<number> {
  const handle = await page.waitForFunction(
    (want) => {
      if (document.querySelectorAll('table[aria-label="Leaderboard"] tbody tr').length < 2) return false;
      const first = document.querySelector('.eval-row');
      if (!first) return false;
      if (want !== null && !(first.textContent ?? '').includes(want)) return false;
      return performance.now();
    },
    firstText,
    { polling: 'raf', timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

async function main() {
  if (!distBuilt()) throw new Error('web/dist is missing: run `npm run build`');
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => void cleanups.push(fn) };
  try {
    const server = await startServerProcess(t, { readyTimeoutMs: 120_000 });
    const key = await server.createKey('bench', { user: 'bench' });
    log(`writing two evaluations of ${ROWS.toLocaleString('en-US')} rows`);
    const post = async (p: string, body: unknown) => {
      const r = await fetch(server.url + p, {
        method: 'POST',
        headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    for (const [n, model, wrongEvery] of [
      [1, 'model-a', 7],
      [2, 'model-b', 1_000_000],
    ] as const) {
      const batch = evaluationCalls(n, model, wrongEvery);
      for (let i = 0; i < batch.length; i += 2000)
        await post('/call/upsert_batch', { batch: batch.slice(i, i + 2000) });
    }
    const ids = [1, 2].map((n) => `0194f3a9-${String(n).padStart(4, '0')}-7000-8000-${'0'.repeat(12)}`);
    const ui = await serveUi(t, server.url, [PROJECT]);
    const browser = await launch();
    cleanups.push(() => browser.close());
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(ui + '/');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();

    const url = `${ui}/${PROJECT}/weave/evaluations/compare?ids=${ids.join(',')}`;
    const open: number[] = [];
    const reorder: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      await page.goto('about:blank');
      await page.goto(url, { waitUntil: 'commit' });
      const ms = await readyAt(page, null);
      if (i > 0) open.push(ms);
      log(`compare view ready: ${r1(ms)} ms${i === 0 ? ' (warm-up)' : ''}`);
      // the costs arrive from a second, slower query; reorder once the page has settled
      await page.waitForFunction(
        () => !document.querySelector('table[aria-label="Leaderboard"]')?.textContent?.includes('…'),
      );
      const t0 = await page.evaluate(() => performance.now());
      await page.getByLabel('Order').selectOption({ label: 'Largest difference in exact_match first' });
      const t1 = await readyAt(page, '≠ differs');
      if (i > 0) reorder.push(t1 - t0);
      log(`ordered by difference: ${r1(t1 - t0)} ms`);
    }
    const machine = machineInfo();
    const p50 = (xs: number[]) => r1(quantile(xs, 0.5));
    const md = [
      '# Evaluation comparison benchmark (bench/ui-evals.ts)',
      '',
      `Two evaluations of ${ROWS.toLocaleString('en-US')} rows (${(ROWS * 4 + 1) * 2} calls), median of ${RUNS} runs after one warm-up.`,
      `Machine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}, load at start ${machine.load_at_start}; commit ${machine.commit}.`,
      '',
      '| Measure | Result | Goal |',
      '|---|---:|---|',
      `| Compare view ready (navigation start → leaderboard and first rows) | ${p50(open)} ms | ≤ 1 s |`,
      `| Rows ordered by the largest exact_match difference | ${p50(reorder)} ms | |`,
      '',
      `Runs (ms): open ${open.map(r1).join(', ')}; reorder ${reorder.map(r1).join(', ')}.`,
    ].join('\n');
    console.log(md);
    const dir = path.join(REPO_ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    fs.writeFileSync(path.join(dir, `ui-evals-${stamp}.md`), md + '\n');
    fs.writeFileSync(
      path.join(dir, `ui-evals-${stamp}.json`),
      JSON.stringify({ machine, rows: ROWS, runs: RUNS, open, reorder }, null, 2) + '\n',
    );
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

await main();
process.exit(0);
