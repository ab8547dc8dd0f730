import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where a PostgreSQL call write spends its time (docs/query-performance.md, "PostgreSQL: where a
 * batch's time goes"): the bench/ingest workload (100 calls a write, start and end of each call in
 * the same write) through the store's `calls.write` into a fresh, migrated database, and per call:
 * the CPU of this process, the CPU of the database backends that served the writes (from
 * /proc/<pid>/stat, so the server must run on this machine), each statement's time as the client
 * sees it, and, when the server preloads `pg_stat_statements`, each statement's execution time,
 * buffers and WAL on the server.
 *
 *   BENCH_TREE=/path/to/other/checkout npx tsx bench/pg-write-cpu.ts
 *
 * BENCH_TREE imports another checkout's `src/` and `bench/lib/` (and its `pg`), so a tree before a
 * change can be measured in the same session, alternating. BENCH_CALLS (20000), BENCH_IN_FLIGHT (4).
 * BENCH_DIST=1 loads the store from the tree's compiled `dist/` (npm run build:server there), as a
 * server runs it, instead of `src/` through tsx.
 * BENCH_SPLIT=1 sends each call's end in a later write than its start, as an SDK does for calls that
 * outlast its flush interval: write i holds the starts of its 100 calls and the ends of write i − 5's
 * (whose starts have committed by then, 4 writes being in flight). BENCH_SPLIT=mixed splits every
 * other batch so and sends the others whole, so both paths of the PostgreSQL writer run side by side.
 * The run reports the deadlocks the database counted (a deadlock costs a second, then a retry).
 * The server: HEDDLE_TEST_POSTGRES_URL, else the test cluster (test/helpers/postgres-server.ts),
 * which does not preload pg_stat_statements; BENCHMARKS.md shows how to start one that does.
 */

const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const SPLIT = process.env.BENCH_SPLIT ?? '';
if (!['', '0', '1', 'mixed'].includes(SPLIT)) throw new Error(`BENCH_SPLIT must be 1 or mixed, got ${SPLIT}`);

/**
 * The writes of the run: each batch's parts; with BENCH_SPLIT=1 its starts and the ends of batch
 * i − 5; with `mixed` every other batch whole and the others split so (ends of batch i − 6).
 */
function writesOf(batches: readonly { parts: { kind: string }[] }[]): { kind: string }[][] {
  if (SPLIT !== '1' && SPLIT !== 'mixed') return batches.map((b) => b.parts);
  const lag = SPLIT === '1' ? 5 : 6;
  const writes: { kind: string }[][] = [];
  for (let i = 0; i < batches.length + lag; i += 1) {
    if (SPLIT === 'mixed' && i % 2 === 0) {
      if (batches[i]) writes.push(batches[i]!.parts);
      continue;
    }
    const starts = batches[i]?.parts.filter((p) => p.kind !== 'end') ?? [];
    const ends = batches[i - lag]?.parts.filter((p) => p.kind === 'end') ?? [];
    if (starts.length + ends.length > 0) writes.push([...starts, ...ends]);
  }
  return writes;
}

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

interface PgClient {
  connect(): Promise<void>;
  end(): Promise<void>;
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}
interface PgModule {
  Client: { new (o: { connectionString: string }): PgClient; prototype: { query: (...args: unknown[]) => unknown } };
}

interface StoreLike {
  migrate(): Promise<void>;
  close(): Promise<void>;
  calls: { write(parts: unknown[]): Promise<void> };
}

/** Client-side time of each statement, by prepared-statement name or leading text. */
function timeStatements(pg: PgModule): { on: boolean; byName: Map<string, { n: number; ms: number }> } {
  const state = { on: false, byName: new Map<string, { n: number; ms: number }>() };
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    if (!state.on) return original.apply(this, args);
    const config = args[0] as string | { name?: string; text?: string };
    const name =
      typeof config === 'string'
        ? config.slice(0, 40)
        : (config.name ?? String(config.text).replace(/\s+/g, ' ').slice(0, 40));
    const started = performance.now();
    const done = (): void => {
      const entry = state.byName.get(name) ?? { n: 0, ms: 0 };
      entry.n += 1;
      entry.ms += performance.now() - started;
      state.byName.set(name, entry);
    };
    // pg-pool's `pool.query` passes a callback; a client's own `query` returns a promise
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function')
      args[last] = (...results: unknown[]) => {
        done();
        return (callback as (...r: unknown[]) => unknown)(...results);
      };
    const result = original.apply(this, args) as unknown;
    if (result instanceof Promise)
      return result.then((value: unknown) => {
        done();
        return value;
      });
    return result;
  };
  return state;
}

/** User + system CPU ticks (1/100 s) of a process, 0 when it is gone or not on this machine. */
function cpuTicks(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const pg = createRequire(path.join(tree, 'package.json'))('pg') as PgModule;
  const timing = timeStatements(pg);
  // loaded only here: the test helpers bring node:test, which prints a TAP summary at exit
  const { createTestDatabase, ensurePostgres } = await import('../test/helpers/postgres.js');
  if ((await ensurePostgres()) === null) throw new Error('PostgreSQL unavailable');
  const db = await createTestDatabase();
  const { PostgresStore } = await load<{ PostgresStore: new (o: { url: string }) => StoreLike }>(
    process.env.BENCH_DIST === '1' ? 'dist/store/postgres/postgres-store.js' : 'src/store/postgres/postgres-store.ts',
  );
  const phases = await load<typeof import('./lib/ingest-phases.js')>('bench/lib/ingest-phases.ts');
  const { runPool } = await load<typeof import('./lib/load.js')>('bench/lib/load.ts');
  const store = new PostgresStore({ url: db.url });
  const admin = new pg.Client({ connectionString: db.url });
  try {
    await store.migrate();
    await admin.connect();
    const statStatements = await admin
      .query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
      .then(() => admin.query('SELECT pg_stat_statements_reset()'))
      .then(
        () => true,
        () => false,
      );
    const work = phases.buildWorkload('bench/ingest', CALLS, 100);
    const writes = writesOf(work.batches);
    const warmup = phases.buildWorkload('bench/warmup', 2000, 100);
    await runPool(warmup.batches.length, IN_FLIGHT, (i) => store.calls.write(warmup.batches[i]!.parts));
    if (statStatements) await admin.query('SELECT pg_stat_statements_reset()');
    const backendPids = async (): Promise<number[]> =>
      (
        await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((r) => r.pid);
    const backends = await backendPids();
    const ticksBefore = new Map(backends.map((pid) => [pid, cpuTicks(pid)]));
    timing.on = true;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await runPool(writes.length, IN_FLIGHT, (i) => store.calls.write(writes[i]!));
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    timing.on = false;
    // connections the pool opened during the run count from their start; one it closed is lost
    const backendsAfter = await backendPids();
    const seen = [...new Set([...backends, ...backendsAfter])];
    const backendTicks = seen.reduce((sum, pid) => sum + cpuTicks(pid) - (ticksBefore.get(pid) ?? 0), 0);
    const closed = backends.filter((pid) => !backendsAfter.includes(pid)).length;
    const batches = work.batches.length;
    const out: string[] = [
      `tree ${tree}, ${work.calls} calls, ${IN_FLIGHT} writes of 100 in flight${SPLIT === '1' ? ', ends 5 writes after their starts' : SPLIT === 'mixed' ? ', every other batch split' : ''}, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
      `rate ${Math.round((work.calls / wallMs) * 1000)} calls/s; CPU µs per call: this process ${((cpu.user + cpu.system) / work.calls).toFixed(1)}, database backends ${((backendTicks * 10_000) / work.calls).toFixed(1)} (${seen.length} connections${closed > 0 ? `, ${closed} closed during the run and not counted` : ''})`,
      '',
      '| Statement (client side) | per 100-call write | ms per 100 calls |',
      '|---|---:|---:|',
      ...[...timing.byName]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([name, t]) => `| ${name} | ${(t.n / batches).toFixed(2)} | ${(t.ms / batches).toFixed(3)} |`),
    ];
    if (statStatements) {
      const { rows } = await admin.query<Record<string, string>>(
        `SELECT calls, total_exec_time, shared_blks_hit, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS q
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND query NOT LIKE '%pg_stat%' ORDER BY total_exec_time DESC LIMIT 8`,
      );
      out.push(
        '',
        '| Statement (server, pg_stat_statements) | runs | exec ms per 100 calls | buffers hit | WAL bytes |',
      );
      out.push('|---|---:|---:|---:|---:|');
      for (const r of rows)
        out.push(
          `| ${r.q!.replace(/\|/g, '\\|')} | ${r.calls} | ${(Number(r.total_exec_time) / batches).toFixed(3)} | ${Math.round(Number(r.shared_blks_hit) / batches)} | ${Math.round(Number(r.wal_bytes) / batches)} |`,
        );
    } else out.push('', '(pg_stat_statements is not preloaded on this server: no server-side figures)');
    // the writers' backends report their deadlocks when they exit (shortly after the pool closes)
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const deadlocks = await admin.query<{ n: string }>(
      'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    out.splice(2, 0, `deadlocks counted by the database since it was created: ${deadlocks.rows[0]!.n}`);
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await admin.end().catch(() => undefined);
    await store.close().catch(() => undefined);
    await db.release();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `pg-write-cpu failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
