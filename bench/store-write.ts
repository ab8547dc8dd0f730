import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Ingest cost in process (docs/query-performance.md, "Ingest cost"): BENCH_CALLS calls (whole
 * traces of bench/lib/workload.ts, ~1 KB each) turned into store parts the way the call service does
 * and written through `calls.write` into a fresh, migrated store, 100 calls a write, 4 writes in
 * flight. Reports wall rate and this process's CPU per call (all threads: on SQLite that includes
 * the writer thread; PostgreSQL's own CPU is not in it, so compare its wall rate).
 *
 * BENCH_TREE points at another checkout of this repository (its `src/` and `bench/lib/` are
 * imported), so the code before a change can be measured in the same session, alternating:
 *   BENCH_TREE=/path/to/main-checkout npx tsx bench/store-write.ts sqlite
 *
 * BENCH_TEXT_INDEXER=1 runs the substring index's background indexer (as the server does, migration
 * 017) beside the writes, so its share of the writer shows in the rate and the CPU per call; the
 * result then also says how many calls it indexed meanwhile and how long it took to catch up after.
 */

interface StoreLike {
  migrate(): Promise<void>;
  close(): Promise<void>;
  calls: { write(parts: unknown[]): Promise<void> };
}

interface IndexerLike {
  start(log: unknown): void;
  stop(): Promise<void>;
}

const WITH_INDEXER = process.env.BENCH_TEXT_INDEXER === '1';

const kind = process.argv[2] ?? 'sqlite';
const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const PER_WRITE = 100;
const IN_FLIGHT = 4;

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

async function openStore(): Promise<{ store: StoreLike; dispose(): Promise<void> }> {
  if (kind === 'sqlite') {
    const { SqliteStore } = await load<{ SqliteStore: new (o: { file: string }) => StoreLike }>(
      'src/store/sqlite/sqlite-store.ts',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-store-write-'));
    const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
    return { store, dispose: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  // loaded only here: the test helpers bring node:test, which prints a TAP summary at exit
  const { createTestDatabase, ensurePostgres } = await import('../test/helpers/postgres.js');
  if ((await ensurePostgres()) === null) throw new Error('PostgreSQL unavailable');
  const db = await createTestDatabase();
  const { PostgresStore } = await load<{ PostgresStore: new (o: { url: string }) => StoreLike }>(
    'src/store/postgres/postgres-store.ts',
  );
  return { store: new PostgresStore({ url: db.url }), dispose: () => db.release() };
}

async function main(): Promise<void> {
  const workload = await load<typeof import('./lib/workload.js')>('bench/lib/workload.ts');
  const time = await load<typeof import('../src/domain/time.js')>('src/domain/time.ts');
  const ops = workload.opRefs('bench/write', 3);
  const calls = workload.makeCalls('bench/write', ops, CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
  const batches: (typeof calls)[] = [];
  for (let i = 0; i < calls.length; i += PER_WRITE) batches.push(calls.slice(i, i + PER_WRITE));
  const { store, dispose } = await openStore();
  try {
    await store.migrate();
    let indexer: IndexerLike | null = null;
    let indexed = 0;
    let caughtUp = 0;
    const log = {
      info: (o: { calls?: number }, message: string) => {
        if (message.endsWith('caught up')) {
          indexed += o.calls ?? 0;
          caughtUp = performance.now();
        }
      },
      warn: (o: unknown, message: string) => console.error(message, o),
    };
    if (WITH_INDEXER) {
      const { CallTextIndexer } = await load<{ CallTextIndexer: new (s: unknown, o: unknown) => IndexerLike }>(
        'src/services/call-indexes/text-indexer.ts',
      );
      indexer = new CallTextIndexer(store, { idleMs: 50 });
      indexer.start(log);
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        // what the service does per request: parts from the parsed bodies (input leaves included)
        await store.calls.write(workload.toParts(batch, 'bench-user', (iso) => time.parseIsoMicros(iso)!));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const result = {
      tree,
      store: kind,
      calls: CALLS,
      wall_s: Math.round(wall * 100) / 100,
      calls_per_s: Math.round(CALLS / wall),
      cpu_us_per_call: Math.round((cpu.user + cpu.system) / CALLS),
      load: os.loadavg()[0]!.toFixed(1),
    };
    if (indexer !== null) {
      const end = performance.now();
      while (caughtUp < end) await new Promise((resolve) => setTimeout(resolve, 20));
      await indexer.stop();
      Object.assign(result, { text_indexed: indexed, text_caught_up_after_s: Math.round(caughtUp - end) / 1000 });
    }
    console.log(JSON.stringify(result));
  } finally {
    await store.close();
    await dispose();
  }
}

await main();
