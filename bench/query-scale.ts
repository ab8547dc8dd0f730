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
import { REPO_ROOT, startHeddle, type ChildServer } from './lib/processes.js';
import { machineInfo } from './lib/report.js';
import { CALLS_PER_TRACE, makeCalls, opRefs, toParts, type GenCall } from './lib/workload.js';

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
const CHUNK = 10_000;
/** One user in this many calls: the probed user has ≈55 calls at any size, as in the issue. */
const USERS = Math.max(1, Math.round(CALLS / 55));
const PROBE_USER = `user-${4374 % USERS}`;
const CONTAINS = `r-${4374 % USERS}`;
const PROBE_TICKET = `ticket-${4374 % USERS}`;
const micros = (iso: string): number => parseIsoMicros(iso)!;

/** One call in this many ends with an exception (status "error"): ≈100 at 100,000 calls. */
const ERROR_EVERY = 997;

/** The user of call `i`: a stride through the users, so each holds CALLS / USERS calls spread over the project's time. */
const userOf = (i: number): string => `user-${(i * 7919) % USERS}`;
/** The ticket in the output of call `i`, another stride. */
const ticketOf = (i: number): string => `ticket-${(i * 7727) % USERS}`;
/** Whether call `i` has an object output (the workload's retrieval step, second of each trace, outputs a list). */
const objectOutput = (i: number): boolean => i % CALLS_PER_TRACE !== 1;

/** Every chunk of the seeded project, generated on demand (the same calls for both stores). */
function* chunks(): Generator<{ calls: GenCall[]; first: number }> {
  const ops = opRefs(PROJECT, 3);
  const traces = Math.ceil(CALLS / CALLS_PER_TRACE);
  const spacing = Math.floor((30 * 86_400 * 1e6) / traces);
  const from = Date.UTC(2025, 4, 1) * 1000;
  for (let written = 0; written < CALLS; written += CHUNK) {
    const n = Math.min(CHUNK, CALLS - written);
    const start = from + (written / CALLS_PER_TRACE) * spacing;
    const calls = makeCalls(PROJECT, ops, n, start, spacing, { rareEvery: 200, firstTrace: written / CALLS_PER_TRACE });
    calls.forEach((c, k) => {
      c.start.inputs = { user_id: userOf(written + k), ...c.start.inputs };
      c.start.attributes = { ...c.start.attributes, user_id: userOf(written + k) };
      const output = c.end.output;
      const isObject = typeof output === 'object' && output !== null && !Array.isArray(output);
      if (isObject !== objectOutput(written + k)) throw new Error('the workload changed its outputs: fix objectOutput');
      if (isObject) c.end.output = { ...output, ticket: ticketOf(written + k) };
      if ((written + k) % ERROR_EVERY === 0) c.end.exception = 'bench error';
    });
    yield { calls, first: written };
  }
}

/** What each probe must return, counted over the generated users. */
function expected(): { eq: number; ticket: number; contains: number; roots: number; errors: number } {
  let eq = 0;
  let ticket = 0;
  let contains = 0;
  for (let i = 0; i < CALLS; i += 1) {
    const user = userOf(i);
    if (user === PROBE_USER) eq += 1;
    if (objectOutput(i) && ticketOf(i) === PROBE_TICKET) ticket += 1;
    if (user.includes(CONTAINS)) contains += 1;
  }
  return { eq, ticket, contains, roots: Math.ceil(CALLS / CALLS_PER_TRACE), errors: Math.ceil(CALLS / ERROR_EVERY) };
}

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

interface Probe {
  name: string;
  goal1m: number;
  goal10m: number;
  path: '/calls/stream_query' | '/calls/query_stats';
  body: Record<string, unknown>;
  /** Lines (stream_query) or the count (query_stats) the answer must have. */
  expect: number;
}

function probes(want: ReturnType<typeof expected>): Probe[] {
  const newest = [{ field: 'started_at', direction: 'desc' }];
  const equal = (field: string, value: string) => ({ $expr: { $eq: [{ $getField: field }, { $literal: value }] } });
  const eq = equal('inputs.user_id', PROBE_USER);
  const contains = {
    $expr: { $contains: { input: { $getField: 'inputs.user_id' }, substr: { $literal: CONTAINS } } },
  };
  // the traces page's search box: the text anywhere in inputs or output, case-insensitive
  const search = {
    $expr: {
      $or: ['inputs', 'output'].map((column) => ({
        $contains: {
          input: { $getField: column },
          substr: { $literal: CONTAINS.toUpperCase() },
          case_insensitive: true,
        },
      })),
    },
  };
  const isError = { $expr: { $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'error' }] } };
  const page = (n: number): number => Math.min(100, n);
  /** The first page, newest first, of `field == value`, which `matches` calls hold. */
  const fieldFilter = (kind: string, field: string, value: string, matches: number): Probe => ({
    name: `filter on one ${kind} field (${field} == "${value}", ${matches} matches)`,
    goal1m: 50,
    goal10m: 100,
    path: '/calls/stream_query',
    body: { project_id: PROJECT, query: equal(field, value), sort_by: newest, limit: 100 },
    expect: page(matches),
  });
  return [
    fieldFilter('input', 'inputs.user_id', PROBE_USER, want.eq),
    {
      name: 'count of that filter (/calls/query_stats)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/query_stats',
      body: { project_id: PROJECT, query: eq },
      expect: want.eq,
    },
    fieldFilter('output', 'output.ticket', PROBE_TICKET, want.ticket),
    fieldFilter('attribute', 'attributes.user_id', PROBE_USER, want.eq),
    {
      name: 'sort by latency (summary.weave.latency_ms desc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, sort_by: [{ field: 'summary.weave.latency_ms', direction: 'desc' }], limit: 100 },
      expect: 100,
    },
    {
      // a root spans its children: ascending, the roots come after nearly every child (migration 028)
      name: 'sort by latency asc, roots only (the traces page)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: {
        project_id: PROJECT,
        filter: { trace_roots_only: true },
        sort_by: [{ field: 'summary.weave.latency_ms', direction: 'asc' }],
        limit: 100,
      },
      expect: 100,
    },
    {
      name: 'count of all calls of the project',
      goal1m: 20,
      goal10m: 50,
      path: '/calls/query_stats',
      body: { project_id: PROJECT },
      expect: CALLS,
    },
    {
      name: `substring of an input ($contains "${CONTAINS}", ${want.contains} matches)`,
      goal1m: 100,
      goal10m: 300,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, query: contains, sort_by: newest, limit: 100 },
      expect: page(want.contains),
    },
    {
      name: 'root calls, newest first',
      goal1m: 20,
      goal10m: 50,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, filter: { trace_roots_only: true }, sort_by: newest, limit: 100 },
      expect: 100,
    },
    {
      name: `search box: "${CONTAINS.toUpperCase()}" anywhere in inputs or output ($or of two $contains, ${want.contains} matches)`,
      goal1m: 100,
      goal10m: 300,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, query: search, sort_by: newest, limit: 100 },
      expect: page(want.contains),
    },
    {
      name: 'count of that search (/calls/query_stats)',
      goal1m: 100,
      goal10m: 300,
      path: '/calls/query_stats',
      body: { project_id: PROJECT, query: search },
      expect: want.contains,
    },
    {
      name: `status filter, newest first (summary.weave.status == "error", ${want.errors} matches)`,
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, query: isError, sort_by: newest, limit: 100 },
      expect: page(want.errors),
    },
    {
      name: 'sort by status (summary.weave.status asc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, sort_by: [{ field: 'summary.weave.status', direction: 'asc' }], limit: 100 },
      expect: 100,
    },
    {
      name: 'sort by op name (op_name asc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, sort_by: [{ field: 'op_name', direction: 'asc' }], limit: 100 },
      expect: 100,
    },
    {
      name: 'sort by display name (display_name asc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: { project_id: PROJECT, sort_by: [{ field: 'display_name', direction: 'asc' }], limit: 100 },
      expect: 100,
    },
    ...tokenSorts(),
    {
      name: 'sort by display name, roots only (the traces page)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query',
      body: {
        project_id: PROJECT,
        filter: { trace_roots_only: true },
        sort_by: [{ field: 'display_name', direction: 'asc' }],
        limit: 100,
      },
      expect: 100,
    },
    ...traceNameSorts(),
    {
      name: 'count of the status filter, capped at 10,000 (/calls/query_stats, limit 10000)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/query_stats',
      body: { project_id: PROJECT, query: isError, limit: 10_000 },
      // the count is capped at the limit (docs/spec/calls.md, /calls/query_stats `count`)
      expect: Math.min(want.errors, 10_000),
    },
  ];
}

/**
 * Sorts by the token total (the traces table's Tokens column): along `call_tokens`, and the plain
 * plan; and by cost (the Cost column), along `call_cost` (written by the indexer, which the seed waits for).
 */
function tokenSorts(): Probe[] {
  const tokens = (direction: 'asc' | 'desc') => ({ field: 'summary.weave.total_tokens', direction });
  return [
    ...(['desc', 'asc'] as const).map((direction) => ({
      name: `sort by tokens (summary.weave.total_tokens ${direction})`,
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: { project_id: PROJECT, sort_by: [tokens(direction)], limit: 100 },
      expect: 100,
    })),
    {
      name: 'sort by tokens desc, then started_at: the plain plan, no index',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: { project_id: PROJECT, sort_by: [tokens('desc'), { field: 'started_at', direction: 'desc' }], limit: 100 },
      expect: 100,
    },
    {
      name: 'sort by cost (summary.weave.total_cost desc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: { project_id: PROJECT, sort_by: [{ field: 'summary.weave.total_cost', direction: 'desc' }], limit: 100 },
      expect: 100,
    },
    // the traces page's default filter; the workload's roots have no usage, so every root is NULL
    ...(['summary.weave.total_tokens', 'summary.weave.total_cost'] as const).map((field) => ({
      name: `sort by ${field.slice('summary.weave.'.length)} desc, roots only (the traces page)`,
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: {
        project_id: PROJECT,
        filter: { trace_roots_only: true },
        sort_by: [{ field, direction: 'desc' }],
        limit: 100,
      },
      expect: 100,
    })),
  ];
}

/**
 * Sorts by the trace name (the traces table's Name column, `summary.weave.trace_name`), along
 * `call_trace_names` (migration 026): the display name, NULL in this workload, falls back to the op's
 * display name, so the names have many ties (ordered by id).
 */
function traceNameSorts(): Probe[] {
  const byName = [{ field: 'summary.weave.trace_name', direction: 'desc' }];
  return [
    {
      name: 'sort by trace name (summary.weave.trace_name desc)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: { project_id: PROJECT, sort_by: byName, limit: 100 },
      expect: 100,
    },
    {
      name: 'sort by trace name desc, roots only (the traces page)',
      goal1m: 50,
      goal10m: 100,
      path: '/calls/stream_query' as const,
      body: { project_id: PROJECT, filter: { trace_roots_only: true }, sort_by: byName, limit: 100 },
      expect: 100,
    },
  ];
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

async function freshPostgres(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `heddle_bench_qs_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { PostgresStore } = await import('../src/store/postgres/postgres-store.js');
  const migrating = new PostgresStore({ url: url.toString() });
  await migrating.migrate();
  await migrating.close();
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
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
  const dir = path.join(REPO_ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(dir, `query-scale-${stamp}.md`), `${md}\n`);
  fs.writeFileSync(
    path.join(dir, `query-scale-${stamp}.json`),
    `${JSON.stringify({ machine: machineInfo(), calls: CALLS, runs: RUNS, ingest: INGEST, results }, null, 2)}\n`,
  );
}

await main();
