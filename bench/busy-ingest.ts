/**
 * The traces table while the server is busy (`npm run bench:busy`; issue 30): what a user sees
 * during and right after ingest, not at rest. For each store (SQLite, then PostgreSQL) it starts the
 * compiled server (`node dist/main.js serve`, as the README's `npm start`; build it first) on an
 * empty store and, through HTTP only:
 *
 * 1. sends BENCH_SINK_CALLS calls to a parse-only Fastify sink (bench/bare-server.ts), the limit
 *    ingest is compared with in the same run;
 * 2. sends BENCH_CALLS calls (default 1,000,000) of the query-scale workload (bench/lib/scale-workload.ts,
 *    about 1 KB of inputs and output each) to `/call/upsert_batch` at full speed: 100 calls a
 *    request, 16 in flight;
 * 3. right after the burst, runs every traces-table probe of the query-scale benchmark round after
 *    round until each one is within its goal (its 1M goal; BENCH_SETTLE_MAX_S at most), and reports
 *    each probe's median and p95 of its first three runs and the seconds after the burst's end until
 *    it was within its goal (three runs in a row);
 * 4. then ingests at half the burst's rate for BENCH_STEADY_S seconds (default 60) while the probes
 *    run round-robin, and reports each probe's median and p95 during that steady ingest.
 *
 * Throughout, every two seconds it samples the call indexer's lag, the calls of the project the
 * indexer has not reached yet (calls after the project's mark in `call_text_marks`, read from the
 * database beside the server: the API does not report it), and the server's RSS; it reports the
 * lag over time and the peak RSS. Writes bench/results/busy-ingest-<stamp>.{md,json}.
 *
 * Knobs: BENCH_CALLS, BENCH_STEADY_S, BENCH_SINK_CALLS (default min(BENCH_CALLS, 200,000)),
 * BENCH_SETTLE_MAX_S (default 900), BENCH_BUSY_STORES (`sqlite,postgres`), BENCH_CPU_PROF_DIR (the
 * server's V8 CPU profile, written there when it stops; bench/cpu-profile-summary.ts reads it).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ensurePostgres } from '../test/helpers/postgres-server.js';
import { LoadClient, quantile, runPool } from './lib/load.js';
import { fmtRate, measure, mib, type PhaseResult } from './lib/measure.js';
import { startBare, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo, writeResults } from './lib/report.js';
import { freshPostgres, scaleWorkload, type Probe } from './lib/scale-workload.js';
import { batchBody } from './lib/workload.js';

const log = (msg: string): void =>
  void process.stderr.write(`[bench:busy ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const intEnv = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, got ${process.env[name]}`);
  return v;
};
const CALLS = intEnv('BENCH_CALLS', 1_000_000);
const STEADY_S = intEnv('BENCH_STEADY_S', 60);
const SINK_CALLS = intEnv('BENCH_SINK_CALLS', Math.min(CALLS, 200_000));
const SETTLE_MAX_S = intEnv('BENCH_SETTLE_MAX_S', 900);
const STORES = (process.env.BENCH_BUSY_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const PROJECT = 'bench/busy';
const BATCH_CALLS = 100;
const IN_FLIGHT = 16;
/** Runs in a row within the goal before a probe counts as within it. */
const WITHIN_RUNS = 3;
const WORKLOAD = scaleWorkload(PROJECT, CALLS);
/** Every probe of the query-scale table but the plain-plan row, which shows what the walks save. */
const PROBES = WORKLOAD.probes(WORKLOAD.expected()).filter((p) => !p.name.includes('the plain plan'));
const r1 = (x: number): number => Math.round(x * 10) / 10;

/** The request bodies of calls [from, to) of the workload, 100 calls each. */
function bodies(from: number, to: number): Buffer[] {
  const out: Buffer[] = [];
  for (const { calls } of WORKLOAD.chunks(BATCH_CALLS, from, to)) out.push(Buffer.from(batchBody(calls)));
  return out;
}

interface LagSample {
  /** Seconds since the burst began. */
  t: number;
  phase: string;
  acknowledged: number;
  unindexed: number;
  rss_mib: number | null;
}

/** Reads the indexer's lag of the project from the database beside the server. */
interface LagReader {
  unindexed(): Promise<number>;
  close(): Promise<void>;
}

const LAG_SQL = `SELECT COUNT(*) AS n FROM calls t LEFT JOIN call_text_marks m ON m.project_id = t.project_id
  WHERE t.project_id = $1 AND (m.project_id IS NULL OR (t.change_seq, t.id) > (m.indexed_seq, m.indexed_id))`;

function sqliteLag(file: string): LagReader {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const statement = db.prepare(LAG_SQL.replace('$1', '?'));
  return {
    unindexed: async () => Number((statement.get(PROJECT) as { n: number }).n),
    close: async () => void db.close(),
  };
}

async function postgresLag(url: string): Promise<LagReader> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    unindexed: async () => Number((await client.query<{ n: string }>(LAG_SQL, [PROJECT])).rows[0]!.n),
    close: () => client.end(),
  };
}

/** One run of a probe: its milliseconds; the answer is checked when `check` (the project is not growing). */
async function runProbe(client: LoadClient, probe: Probe, check: boolean): Promise<number> {
  const t0 = performance.now();
  const reply = await client.postOk(probe.path, JSON.stringify(probe.body), probe.path === '/calls/query_stats');
  const ms = performance.now() - t0;
  if (check) {
    const got =
      probe.path === '/calls/query_stats' ? (JSON.parse(reply.text!) as { count: number }).count : reply.lines;
    if (got !== probe.expect) throw new Error(`${probe.name}: got ${got}, expected ${probe.expect}`);
  }
  return ms;
}

interface ProbeResult {
  name: string;
  goal_ms: number;
  after_median_ms: number;
  after_p95_ms: number;
  /** Seconds after the burst's end until the probe was within its goal; null if it never was. */
  within_goal_after_s: number | null;
  /** Null when no run of the probe finished during the steady phase. */
  steady_median_ms: number | null;
  steady_p95_ms: number | null;
  steady_runs: number;
}

interface StoreResult {
  store: string;
  sink: PhaseResult;
  burst: PhaseResult;
  steady: { calls: number; seconds: number; per_s: number; target_per_s: number };
  probes: ProbeResult[];
  lag: LagSample[];
  /** Seconds after the burst's end until the indexer had reached every call of the burst. */
  indexed_after_s: number | null;
  peak_rss: number | null;
}

async function benchStore(store: string): Promise<StoreResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-busy-'));
  let drop: (() => Promise<void>) | null = null;
  let env: Record<string, string> = {};
  try {
    if (store === 'postgres') {
      const adminUrl = await ensurePostgres();
      if (adminUrl === null) throw new Error('PostgreSQL is not available');
      const db = await freshPostgres(adminUrl);
      drop = db.drop;
      env = { HEDDLE_DATABASE_URL: db.url };
    }
    const sink = await sinkPhase(store);
    const key = randomBytes(20).toString('hex');
    process.env.BENCH_SERVER = 'dist';
    const server = await startHeddle({ dataDir, adminKey: key, env, cpuProfileDir: process.env.BENCH_CPU_PROF_DIR });
    try {
      const lag = store === 'postgres' ? await postgresLag(env.HEDDLE_DATABASE_URL!) : null;
      return await runBusy(store, server, key, sink, lag, dataDir);
    } finally {
      await server.stop();
    }
  } finally {
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function sinkPhase(store: string): Promise<PhaseResult> {
  log(`${store}: ${SINK_CALLS.toLocaleString('en-US')} calls to the parse-only sink`);
  const work = bodies(0, SINK_CALLS);
  const sink = await startBare('fastify');
  const client = new LoadClient(sink.url, null, IN_FLIGHT);
  try {
    return await measure('parse-only Fastify sink', SINK_CALLS, sink, () =>
      runPool(work.length, IN_FLIGHT, async (i) => void (await client.postOk('/call/upsert_batch', work[i]!))),
    );
  } finally {
    client.close();
    await sink.stop();
  }
}

async function runBusy(
  store: string,
  server: ChildServer,
  key: string,
  sink: PhaseResult,
  pgLag: LagReader | null,
  dataDir: string,
): Promise<StoreResult> {
  log(`${store}: generating ${CALLS.toLocaleString('en-US')} calls`);
  const work = bodies(0, CALLS);
  const ingest = new LoadClient(server.url, key, IN_FLIGHT);
  const query = new LoadClient(server.url, key, 1);
  const samples: LagSample[] = [];
  let acknowledged = 0;
  let phase = 'burst';
  let lag: LagReader | null = pgLag;
  const began = performance.now();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      if (lag === null && fs.existsSync(path.join(dataDir, 'heddle.sqlite')))
        lag = sqliteLag(path.join(dataDir, 'heddle.sqlite'));
      const unindexed = lag === null ? 0 : await lag.unindexed();
      const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
      const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
      samples.push({
        t: r1((performance.now() - began) / 1000),
        phase,
        acknowledged,
        unindexed,
        rss_mib: rss ? Math.round(Number(rss[1]) / 1024) : null,
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  })();
  try {
    server.resetPeakRss();
    log(`${store}: burst of ${CALLS.toLocaleString('en-US')} calls`);
    const burst = await measure(
      'burst through /call/upsert_batch (100 calls a request, 16 in flight)',
      CALLS,
      server,
      () =>
        runPool(work.length, IN_FLIGHT, async (i) => {
          await ingest.postOk('/call/upsert_batch', work[i]!);
          acknowledged += BATCH_CALLS;
        }),
    );
    work.length = 0;
    const burstEnd = performance.now();
    log(`${store}: burst ${fmtRate(burst.perSecond)} calls/s (sink ${fmtRate(sink.perSecond)})`);
    phase = 'after the burst';
    const after = await settle(store, query, burstEnd);
    phase = 'steady ingest';
    const steady = await steadyPhase(store, ingest, query, burst.perSecond / 2, (n) => (acknowledged += n));
    sampling = false;
    await sampler;
    const peak = server.peakRss();
    const burstSeconds = (burstEnd - began) / 1000;
    const indexedAt = samples.find((s) => s.t >= burstSeconds && s.unindexed === 0);
    return {
      store,
      sink,
      burst,
      steady: steady.ingest,
      probes: PROBES.map((p, i) => ({
        name: p.name,
        goal_ms: p.goal1m,
        ...after[i]!,
        ...steadyQuantiles(steady.timings[i]!),
        steady_runs: steady.timings[i]!.length,
      })),
      lag: samples,
      indexed_after_s: indexedAt === undefined ? null : r1(indexedAt.t - burstSeconds),
      peak_rss: peak,
    };
  } finally {
    sampling = false;
    await sampler;
    await lag?.close();
    ingest.close();
    query.close();
  }
}

/** Rounds of every probe not yet within its goal, from the burst's end, until all are (or SETTLE_MAX_S). */
async function settle(
  store: string,
  client: LoadClient,
  burstEnd: number,
): Promise<Array<{ after_median_ms: number; after_p95_ms: number; within_goal_after_s: number | null }>> {
  const first: number[][] = PROBES.map(() => []);
  const streak: Array<{ since: number; runs: number }> = PROBES.map(() => ({ since: 0, runs: 0 }));
  const within: Array<number | null> = PROBES.map(() => null);
  while ((performance.now() - burstEnd) / 1000 < SETTLE_MAX_S) {
    const open = PROBES.map((_, i) => i).filter((i) => within[i] === null || first[i]!.length < WITHIN_RUNS);
    if (open.length === 0) break;
    for (const i of open) {
      const probe = PROBES[i]!;
      const at = (performance.now() - burstEnd) / 1000;
      const ms = await runProbe(client, probe, true);
      if (first[i]!.length < WITHIN_RUNS) first[i]!.push(ms);
      if (within[i] !== null) continue;
      const s = streak[i]!;
      if (ms <= probe.goal1m) {
        if (s.runs === 0) s.since = at;
        s.runs += 1;
        if (s.runs >= WITHIN_RUNS) {
          within[i] = r1(s.since);
          log(`${store}: within goal ${r1(s.since)} s after the burst: ${probe.name}`);
        }
      } else s.runs = 0;
    }
  }
  return PROBES.map((_, i) => ({
    after_median_ms: r1(quantile(first[i]!, 0.5)),
    after_p95_ms: r1(quantile(first[i]!, 0.95)),
    within_goal_after_s: within[i]!,
  }));
}

/** Ingest at `rate` calls/s for STEADY_S seconds while the probes run round-robin. */
async function steadyPhase(
  store: string,
  ingest: LoadClient,
  query: LoadClient,
  rate: number,
  acked: (calls: number) => void,
): Promise<{ ingest: StoreResult['steady']; timings: number[][] }> {
  log(`${store}: steady ingest at ${fmtRate(rate)} calls/s for ${STEADY_S} s`);
  const total = Math.ceil((rate * STEADY_S) / BATCH_CALLS) * BATCH_CALLS;
  const work = bodies(CALLS, CALLS + total);
  const t0 = performance.now();
  let sent = 0;
  const sending = runPool(work.length, IN_FLIGHT, async (i) => {
    // request i leaves at its time on the schedule: a steady rate, not a burst
    const due = t0 + ((i * BATCH_CALLS) / rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await ingest.postOk('/call/upsert_batch', work[i]!);
    sent += BATCH_CALLS;
    acked(BATCH_CALLS);
  });
  let done = false;
  void sending.then(
    () => (done = true),
    () => (done = true),
  );
  const timings: number[][] = PROBES.map(() => []);
  for (let i = 0; !done; i = (i + 1) % PROBES.length) timings[i]!.push(await runProbe(query, PROBES[i]!, false));
  await sending;
  const seconds = (performance.now() - t0) / 1000;
  return {
    ingest: { calls: sent, seconds: r1(seconds), per_s: Math.round(sent / seconds), target_per_s: Math.round(rate) },
    timings,
  };
}

/** A probe's median and p95 during steady ingest; null when none of its runs finished (not NaN). */
function steadyQuantiles(timings: number[]): { steady_median_ms: number | null; steady_p95_ms: number | null } {
  if (timings.length === 0) return { steady_median_ms: null, steady_p95_ms: null };
  return { steady_median_ms: r1(quantile(timings, 0.5)), steady_p95_ms: r1(quantile(timings, 0.95)) };
}

function report(results: StoreResult[]): string {
  const machine = machineInfo();
  const verdict = (ok: boolean): string => (ok ? 'met' : '**not met**');
  const lines = [
    '# The traces table while busy (bench/busy-ingest.ts)',
    '',
    `${CALLS.toLocaleString('en-US')} calls through /call/upsert_batch at full speed, then ${STEADY_S} s at half that rate; compiled server; through HTTP.`,
    `Machine: ${machine.cpus}, ${machine.memory}, Node ${machine.node}, load at start ${machine.load_at_start}; commit ${machine.commit}.`,
    '',
    '| Store | Sink (calls/s) | Burst (calls/s) | Burst / sink | Steady (calls/s, target) | Indexed after the burst | Peak RSS |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${fmtRate(r.sink.perSecond)} | ${fmtRate(r.burst.perSecond)} | ${Math.round((100 * r.burst.perSecond) / r.sink.perSecond)} % | ${fmtRate(r.steady.per_s)} (${fmtRate(r.steady.target_per_s)}) | ${r.indexed_after_s === null ? 'not within the run' : `${r.indexed_after_s} s`} | ${mib(r.peak_rss)} |`,
    ),
    '',
    `| Query | Goal | ${results.map((r) => `${r.store}: right after, median / p95 (ms) | within goal after (s) | during steady ingest, median / p95 (ms)`).join(' | ')} | ${results.map((r) => r.store).join(' | ')} |`,
    `|---|---:|${results.map(() => '---:|---:|---:').join('|')}|${results.map(() => '---').join('|')}|`,
  ];
  results[0]!.probes.forEach((p, i) => {
    const cells = results.map((r) => {
      const x = r.probes[i]!;
      return `${x.after_median_ms} / ${x.after_p95_ms} | ${x.within_goal_after_s ?? `> ${SETTLE_MAX_S}`} | ${x.steady_median_ms === null ? 'no run finished' : `${x.steady_median_ms} / ${x.steady_p95_ms}`}`;
    });
    const verdicts = results.map((r) => {
      const x = r.probes[i]!;
      return verdict(
        x.within_goal_after_s !== null &&
          x.within_goal_after_s <= 60 &&
          x.steady_median_ms !== null &&
          x.steady_median_ms <= x.goal_ms,
      );
    });
    lines.push(`| ${p.name} | ≤ ${p.goal_ms} ms | ${cells.join(' | ')} | ${verdicts.join(' | ')} |`);
  });
  for (const r of results) {
    lines.push(
      '',
      `Indexer lag, ${r.store} (calls not indexed yet, every 10 s):`,
      '',
      '| s | phase | acknowledged | not indexed | RSS MiB |',
      '|---:|---|---:|---:|---:|',
    );
    let next = 0;
    for (const s of r.lag)
      if (s.t >= next) {
        lines.push(`| ${s.t} | ${s.phase} | ${s.acknowledged} | ${s.unindexed} | ${s.rss_mib ?? 'n/a'} |`);
        next = s.t + 10;
      }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const results: StoreResult[] = [];
  for (const store of STORES) {
    if (store !== 'sqlite' && store !== 'postgres') throw new Error(`unknown store in BENCH_BUSY_STORES: ${store}`);
    results.push(await benchStore(store));
  }
  const md = report(results);
  console.log(md);
  writeResults(`${md}\n`, { machine: machineInfo(), calls: CALLS, steady_s: STEADY_S, results }, 'busy-ingest');
}

await main();
