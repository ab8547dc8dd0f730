import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The traces table's display-name sort (docs/query-performance.md "The display-name sort off the
 * commit path") over named calls, in process: BENCH_CALLS calls of bench/lib/workload.ts written
 * through `calls.write` into a fresh store (SQLite, or PostgreSQL with BENCH_STORE=postgres), half
 * of them named (1,000 distinct names, "run-0000" to "run-0999", so every name has ties; the other
 * half NULL), the call indexer run to the end, then each query's first page (limit 100) timed
 * BENCH_RUNS times after 3 warm-up runs: median and p95 ms. (bench/query-scale.ts measures the sort
 * through HTTP, on its workload, where every display name is NULL.)
 *
 * BENCH_FIELD=op_name times the op-name sort (`call_op_names`, migration 029) over the same calls
 * instead: the workload's few ops each hold many calls, whose ties the sort orders by id.
 *
 * BENCH_TREE points at another checkout (its `src/`, `bench/lib/` and `test/helpers/` are
 * imported), so the tree before a change can be measured in the same session, alternating:
 *   BENCH_TREE=/path/to/other-checkout npx tsx bench/display-sort.ts
 */

const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const STORE = process.env.BENCH_STORE === 'postgres' ? 'postgres' : 'sqlite';
const PROJECT = 'bench/display';
const FIELD = process.env.BENCH_FIELD === 'op_name' ? 'op_name' : 'display_name';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

interface Store {
  migrate(): Promise<void>;
  close(): Promise<void>;
  calls: { write(parts: unknown[]): Promise<void>; query(q: unknown): AsyncIterable<{ id: string }> };
  callText: { step(): Promise<{ calls: number; project: string | null }> };
}

async function open(): Promise<{ store: Store; dispose(): Promise<void> }> {
  if (STORE === 'sqlite') {
    const { SqliteStore } = await load<{ SqliteStore: new (o: { file: string }) => Store }>(
      'src/store/sqlite/sqlite-store.ts',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-display-sort-'));
    const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
    return { store, dispose: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const pgHelpers = await load<typeof import('../test/helpers/postgres.js')>('test/helpers/postgres.ts');
  if ((await pgHelpers.ensurePostgres()) === null) throw new Error('PostgreSQL unavailable');
  const db = await pgHelpers.createTestDatabase();
  const { PostgresStore } = await load<{ PostgresStore: new (o: { url: string }) => Store }>(
    'src/store/postgres/postgres-store.ts',
  );
  const analyze = async (): Promise<void> => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('ANALYZE');
    await client.end();
  };
  const store = new PostgresStore({ url: db.url });
  return { store: Object.assign(store, { analyze }), dispose: () => db.release() };
}

async function main(): Promise<void> {
  const workload = await load<typeof import('./lib/workload.js')>('bench/lib/workload.ts');
  const time = await load<typeof import('../src/domain/time.js')>('src/domain/time.ts');
  const { parseSort } = await load<typeof import('../src/domain/query/parse.js')>('src/domain/query/parse.ts');
  const { resolveCallField } = await load<typeof import('../src/domain/call-fields.js')>('src/domain/call-fields.ts');
  const { store, dispose } = await open();
  try {
    await store.migrate();
    const ops = workload.opRefs(PROJECT, 3);
    const calls = workload.makeCalls(PROJECT, ops, CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    let n = 0;
    for (let i = 0; i < calls.length; i += 1_000) {
      const parts = workload.toParts(calls.slice(i, i + 1_000), 'bench-user', (iso) => time.parseIsoMicros(iso)!);
      for (const part of parts as Array<{ kind: string; display_name: string | null }>)
        if (part.kind === 'start') {
          // every other call named, with a 1,000-name cycle that does not follow the call order
          part.display_name = n % 2 === 0 ? `run-${String((n * 7_919) % 1_000).padStart(4, '0')}` : null;
          n += 1;
        }
      await store.calls.write(parts);
    }
    const i0 = performance.now();
    while ((await store.callText.step()).project !== null);
    const indexMs = performance.now() - i0;
    const analyze = (store as { analyze?: () => Promise<void> }).analyze;
    if (analyze) await analyze();
    const rows: Array<Record<string, unknown>> = [];
    for (const [direction, roots] of [
      ['asc', false],
      ['desc', false],
      ['asc', true],
      ['desc', true],
    ] as const) {
      const q = {
        project_id: PROJECT,
        sort_by: parseSort([{ field: FIELD, direction }], resolveCallField),
        filter: roots ? { trace_roots_only: true } : undefined,
        limit: 100,
      };
      const times: number[] = [];
      let first: string[] = [];
      for (let r = 0; r < RUNS + 3; r++) {
        const t0 = performance.now();
        const ids: string[] = [];
        for await (const row of store.calls.query(q)) ids.push(row.id);
        if (r >= 3) times.push(performance.now() - t0);
        first = ids;
      }
      times.sort((a, b) => a - b);
      rows.push({
        sort: `${FIELD} ${direction}${roots ? ', roots only' : ''}`,
        rows: first.length,
        median_ms: Number(times[Math.floor(times.length / 2)]!.toFixed(1)),
        p95_ms: Number(times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!.toFixed(1)),
      });
    }
    console.log(
      JSON.stringify({
        tree,
        store: STORE,
        calls: CALLS,
        index_s: Number((indexMs / 1000).toFixed(1)),
        load: os.loadavg()[0]!.toFixed(1),
        rows,
      }),
    );
  } finally {
    await store.close();
    await dispose();
  }
}

await main();
