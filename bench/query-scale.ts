/**
 * Query-scale benchmark (`npm run bench:query-scale`; issue 16). For each store (SQLite, then
 * PostgreSQL) it seeds BENCH_CALLS calls (default 1,000,000) of about 1 KB of inputs and output
 * into one project straight through the store (SQLite: calls.write in big batches; PostgreSQL: COPY
 * of the finished rows, then VACUUM ANALYZE as autovacuum would do), starts Heddle on that data
 * and times, through HTTP, every query of the issue's table (first page of 100 or a count):
 *
 * 1. filter on one input field, `inputs.user_id == "user-4374"` (≈55 matches at any size);
 * 2. /calls/query_stats count of that filter; the same filter on an output field
 *    (`output.ticket`, ≈44 matches: every call whose output is an object has one) and on an attribute
 *    field (`attributes.user_id`, ≈55), whose leaves are fills of the call indexer;
 * 3. sort by `summary.weave.latency_ms` desc, and asc with the traces page's roots-only filter (along
 *    `call_latency_roots`, migration 028: the roots span their children, so they come last);
 * 4. /calls/query_stats count of all calls of the project;
 * 5. `$contains` of a substring of an input (`inputs.user_id` contains "r-4374");
 * 6. root calls, newest first;
 * 7. the traces page's search box (`text`, web/src/lib/query.ts): `$or` of a case-insensitive
 *    `$contains` of "R-4374" on `inputs` and on `output` as a whole, first page and its count;
 * 8. the status filter with the UI's default order, `summary.weave.status == "error"`, newest first
 *    (one call in ERROR_EVERY ends with an exception);
 * 9. sort by `summary.weave.status` (the status column), ascending;
 * 10. /calls/query_stats count of the status filter, capped at 10,000 as the traces page asks;
 * 11. sorts by op name (`calls_by_op`) and by display name (`call_display`, migration 021; alone and
 *     with the traces page's roots-only filter), columns of the traces table. Every display name of
 *     the workload is NULL: bench/display-sort.ts measures the sort over named calls;
 * 12. sorts by the token total (`summary.weave.total_tokens`, `call_tokens` of migration 022) both
 *    ways, and the same sort with a second key, which keeps the plain plan (every call's total);
 *    the sort by cost (`summary.weave.total_cost`, along `call_cost`, migration 024);
 * 13. sorts by trace name (`summary.weave.trace_name`, along `call_trace_names`, migration 026),
 *    desc, alone and with the roots-only filter.
 *
 * Before the server starts, the call indexer's indexes (the substring index of `$contains`,
 * migration 017, and `call_values` of the input-field filter, migration 018) are filled by stepping
 * the indexer in process until it has caught up (what the server's background indexer does), timed
 * and reported as calls/s; the seed writes neither. So queries 1, 2 and 5 are timed on indexed data.
 *
 * Then it ingests BENCH_QS_INGEST calls through /call/upsert_batch into the seeded server (as
 * bench/ingest.ts does: 100 calls a request, 4 in flight) and reports the rate and the server's peak
 * RSS. Knobs: BENCH_CALLS, BENCH_QS_RUNS (timed runs per query after one warm-up; median and p95
 * reported; default 5), BENCH_QS_INGEST (default 20,000), BENCH_QS_STORES (`sqlite,postgres`).
 * Writes bench/results/query-scale-<stamp>.{md,json}.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parseIsoMicros } from '../src/domain/time.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../src/store/types.js';
import { ensurePostgres } from '../test/helpers/postgres-server.js';
import { batchPhase, buildWorkload } from './lib/ingest-phases.js';
import { LoadClient, quantile } from './lib/load.js';
import { fmtRate, measure, mib, type PhaseResult } from './lib/measure.js';
import { copyCalls, copyChunks } from './lib/pg-copy.js';
import { startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, writeResults } from './lib/report.js';
import { freshPostgres, scaleWorkload, type Probe } from './lib/scale-workload.js';
import { toParts } from './lib/workload.js';

const log = (msg: string): void =>
  void process.stderr.write(`[bench:qs ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const intEnv = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return v;
};
const CALLS = intEnv('BENCH_CALLS', 1_000_000);
const RUNS = intEnv('BENCH_QS_RUNS', 5);
const INGEST = intEnv('BENCH_QS_INGEST', 20_000);
const STORES = (process.env.BENCH_QS_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const PROJECT = 'bench/scale';
const WORKLOAD = scaleWorkload(PROJECT, CALLS);
const { chunks, expected, probes } = WORKLOAD;
const micros = (iso: string): number => parseIsoMicros(iso)!;

interface Seeded {
  seed: PhaseResult;
  /** The call indexer's indexes filled after the seed (store.callText.step until caught up). */
  textIndex: PhaseResult;
}

/** Steps the call indexer until nothing is left, as the server's background indexer would. */
async function indexText(store: Pick<TraceStore, 'callText'>, label: string): Promise<PhaseResult> {
  let steps = 0;
  const result = await measure(
    `${label}: call indexer, texts and input leaves (callText.step until caught up)`,
    CALLS,
    null,
    async () => {
      let done = 0;
      let lastLog = performance.now();
      for (;;) {
        const step = await store.callText.step();
        if (step.project === null) break;
        steps += 1;
        done += step.calls;
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`${label}: call indexer: ${done.toLocaleString('en-US')} calls`);
        }
      }
    },
  );
  log(`${label}: call indexer: ${steps} steps, ${fmtRate(result.perSecond)} calls/s`);
  return result;
}

async function seedSqlite(dataDir: string): Promise<Seeded> {
  const store = new SqliteStore({ file: path.join(dataDir, 'heddle.sqlite') });
  try {
    await store.migrate();
    const seed = await measure(
      'seed SQLite (calls.write, 10k-call batches, incl. generating)',
      CALLS,
      null,
      async () => {
        for (const { calls } of chunks()) await store.calls.write(toParts(calls, 'bench-user', micros));
      },
    );
    return { seed, textIndex: await indexText(store, 'sqlite') };
  } finally {
    await store.close();
  }
}

async function seedPostgres(url: string): Promise<Seeded> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const seeded = await measure('seed PostgreSQL (COPY of finished rows, incl. generating)', CALLS, null, async () => {
      for (const { calls } of chunks()) {
        await copyCalls(client, copyChunks(toParts(calls, 'bench-user', micros)));
      }
    });
    const t0 = performance.now();
    await client.query('VACUUM ANALYZE calls');
    log(`VACUUM ANALYZE calls: ${Math.round(performance.now() - t0)} ms`);
    const { PostgresStore } = await import('../src/store/postgres/postgres-store.js');
    const store = new PostgresStore({ url });
    try {
      const textIndex = await indexText(store, 'postgres');
      // what autovacuum does soon after: the indexer has just written these tables
      await client.query('VACUUM ANALYZE call_texts');
      await client.query('VACUUM ANALYZE call_values');
      await client.query('VACUUM ANALYZE call_latency');
      if ((await client.query(`SELECT to_regclass('call_latency_roots') AS t`)).rows[0].t !== null)
        await client.query('VACUUM ANALYZE call_latency_roots');
      if ((await client.query(`SELECT to_regclass('call_status') AS t`)).rows[0].t !== null)
        await client.query('VACUUM ANALYZE call_status');
      if ((await client.query(`SELECT to_regclass('call_tokens') AS t`)).rows[0].t !== null)
        await client.query('VACUUM ANALYZE call_tokens');
      if ((await client.query(`SELECT to_regclass('call_cost') AS t`)).rows[0].t !== null)
        await client.query('VACUUM ANALYZE call_cost');
      return { seed: seeded, textIndex };
    } finally {
      await store.close();
    }
  } finally {
    await client.end();
  }
}

interface ProbeResult {
  name: string;
  median_ms: number;
  p95_ms: number;
  goal_ms: number;
  goal_10m_ms: number;
  runs_ms: number[];
}

async function runProbe(client: LoadClient, probe: Probe): Promise<ProbeResult> {
  const body = JSON.stringify(probe.body);
  const once = async (): Promise<number> => {
    const t0 = performance.now();
    const reply = await client.postOk(probe.path, body, probe.path === '/calls/query_stats');
    const ms = performance.now() - t0;
    const got =
      probe.path === '/calls/query_stats' ? (JSON.parse(reply.text!) as { count: number }).count : reply.lines;
    if (got !== probe.expect) throw new Error(`${probe.name}: got ${got}, expected ${probe.expect}`);
    return ms;
  };
  await once();
  const timings: number[] = [];
  for (let i = 0; i < RUNS; i += 1) timings.push(await once());
  const r1 = (x: number): number => Math.round(x * 10) / 10;
  return {
    name: probe.name,
    median_ms: r1(quantile(timings, 0.5)),
    p95_ms: r1(quantile(timings, 0.95)),
    goal_ms: probe.goal1m,
    goal_10m_ms: probe.goal10m,
    runs_ms: timings.map(r1),
  };
}

interface StoreResult {
  store: string;
  seed: PhaseResult;
  textIndex: PhaseResult;
  probes: ProbeResult[];
  ingest: PhaseResult;
  queryPeakRss: number | null;
}

async function runStore(store: string, dataDir: string, { seed, textIndex }: Seeded): Promise<StoreResult> {
  const key = randomBytes(20).toString('hex');
  const server: ChildServer = await startHeddle({ dataDir, adminKey: key });
  const client = new LoadClient(server.url, key, 1);
  try {
    const want = expected();
    const results: ProbeResult[] = [];
    server.resetPeakRss();
    for (const probe of probes(want)) {
      const result = await runProbe(client, probe);
      log(`${store}: ${probe.name}: median ${result.median_ms} ms (${result.runs_ms.join(', ')})`);
      results.push(result);
    }
    const queryPeakRss = server.peakRss();
    log(`${store}: ingesting ${INGEST} calls through /call/upsert_batch`);
    const work = buildWorkload(PROJECT, INGEST, 100);
    const warmup = buildWorkload('bench/warmup', 2000, 100);
    const ingest = await batchPhase(`${store}: /call/upsert_batch into the seeded store`, server, key, work, warmup, 4);
    log(`${store}: ingest ${fmtRate(ingest.perSecond)} calls/s, peak RSS ${mib(ingest.serverPeakRss)}`);
    return { store, seed, textIndex, probes: results, ingest, queryPeakRss };
  } finally {
    client.close();
    await server.stop();
  }
}

async function benchStore(store: string): Promise<StoreResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-qs-'));
  let drop: (() => Promise<void>) | null = null;
  try {
    log(`${store}: seeding ${CALLS.toLocaleString('en-US')} calls`);
    if (store === 'sqlite') return await runStore(store, dataDir, await seedSqlite(dataDir));
    const adminUrl = await ensurePostgres();
    if (adminUrl === null) throw new Error('PostgreSQL is not available');
    const db = await freshPostgres(adminUrl);
    drop = db.drop;
    const seed = await seedPostgres(db.url);
    process.env.HEDDLE_DATABASE_URL = db.url;
    try {
      return await runStore(store, dataDir, seed);
    } finally {
      delete process.env.HEDDLE_DATABASE_URL;
    }
  } finally {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(results: StoreResult[]): string {
  const machine = machineInfo();
  const verdict = (ms: number, goal: number): string => (ms <= goal ? 'met' : '**not met**');
  const goalColumn = CALLS >= 5_000_000 ? 'goal_10m_ms' : 'goal_ms';
  const lines = [
    '# Query-scale benchmark (bench/query-scale.ts)',
    '',
    `${CALLS.toLocaleString('en-US')} calls in one project; median of ${RUNS} runs after one warm-up, through HTTP.`,
    `Machine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}, load at start ${machine.load_at_start}; commit ${machine.commit}.`,
    '',
    `| Query (first page of 100, or a count) | ${results.map((r) => `${r.store} median / p95 (ms)`).join(' | ')} | Goal | ${results.map((r) => r.store).join(' | ')} |`,
    `|---|${results.map(() => '---:').join('|')}|---:|${results.map(() => '---').join('|')}|`,
  ];
  results[0]!.probes.forEach((p, i) => {
    const goal = p[goalColumn];
    const cells = results.map((r) => `${r.probes[i]!.median_ms} / ${r.probes[i]!.p95_ms}`);
    const verdicts = results.map((r) => verdict(r.probes[i]!.median_ms, goal));
    lines.push(`| ${p.name} | ${cells.join(' | ')} | ≤ ${goal} ms | ${verdicts.join(' | ')} |`);
  });
  lines.push(
    '',
    '| Store | Seeding (calls/s) | Call indexer after the seed, texts and input leaves (s, calls/s) | /call/upsert_batch into the seeded store (calls/s) | Peak RSS, ingest | Peak RSS, queries |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${fmtRate(r.seed.perSecond)} | ${r.textIndex.seconds.toFixed(1)} s, ${fmtRate(r.textIndex.perSecond)} | ${fmtRate(r.ingest.perSecond)} | ${mib(r.ingest.serverPeakRss)} | ${mib(r.queryPeakRss)} |`,
    ),
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const results: StoreResult[] = [];
  for (const store of STORES) {
    if (store !== 'sqlite' && store !== 'postgres') throw new Error(`unknown store in BENCH_QS_STORES: ${store}`);
    results.push(await benchStore(store));
  }
  const md = report(results);
  console.log(md);
  writeResults(`${md}\n`, { machine: machineInfo(), calls: CALLS, runs: RUNS, ingest: INGEST, results }, 'query-scale');
}

await main();
