import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The SQLite writer's own cost per call (docs/query-performance.md, "Where the SQLite writer's time
 * goes"): BENCH_CALLS calls of bench/lib/workload.ts (~1 KB each), 100 calls a write and 4 writes a
 * group, applied with `applyWrites` on one connection in this thread, the way the writer thread
 * receives them; reports CPU µs per call and the WAL written per call. No HTTP, no thread crossing.
 *
 * BENCH_TREE points at another checkout (its `src/` and `bench/lib/` are imported), so the code
 * before a change can be measured in the same session, alternating:
 *   BENCH_TREE=/path/to/other-checkout npx tsx bench/writer-cpu.ts
 * The connection checkpoints as the writer thread's does (connection.ts `WRITER_WAL_AUTOCHECKPOINT`;
 * 4,000 pages for a tree without it, what the writer thread set from `f6b1245` on; older trees kept
 * SQLite's 1,000: BENCH_WAL_CHECKPOINT=1000 measures them as they ran). BENCH_WAL_CHECKPOINT sets
 * another `wal_autocheckpoint` (0: no checkpoint during the run, so the WAL's size is everything the
 * commits wrote).
 */

const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 60_000);
const checkpoint = process.env.BENCH_WAL_CHECKPOINT;

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

type Db = { pragma(sql: string): unknown; close(): void };

async function main(): Promise<void> {
  const { SqliteStore } = await load<{
    SqliteStore: new (o: { file: string }) => { migrate(): Promise<void>; close(): Promise<void> };
  }>('src/store/sqlite/sqlite-store.ts');
  const { openConnection, WRITER_WAL_AUTOCHECKPOINT } = await load<{
    openConnection(f: string, s: string, r: boolean): Db;
    WRITER_WAL_AUTOCHECKPOINT?: number;
  }>('src/store/sqlite/connection.ts');
  const { callPartRow } = await load<{ callPartRow(p: unknown): unknown[] }>('src/store/sqlite/call-writes.ts');
  const { applyWrites } = await load<{ applyWrites(db: Db, w: unknown[]): [number, boolean, unknown][] }>(
    'src/store/sqlite/group-commit.ts',
  );
  const workload = await load<typeof import('./lib/workload.js')>('bench/lib/workload.ts');
  const time = await load<typeof import('../src/domain/time.js')>('src/domain/time.ts');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-writer-cpu-'));
  const file = path.join(dir, 'heddle.sqlite');
  try {
    const store = new SqliteStore({ file });
    await store.migrate();
    await store.close();
    const db = openConnection(file, 'NORMAL', false);
    const pages = checkpoint !== undefined ? Number(checkpoint) : (WRITER_WAL_AUTOCHECKPOINT ?? 4000);
    db.pragma(`wal_autocheckpoint = ${pages}`);
    const ops = workload.opRefs('bench/write', 3);
    const calls = workload.makeCalls('bench/write', ops, CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    const writes: unknown[][] = [];
    for (let i = 0; i < calls.length; i += 100) {
      const parts = workload.toParts(calls.slice(i, i + 100), 'bench-user', (iso) => time.parseIsoMicros(iso)!);
      writes.push(parts.map(callPartRow));
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < writes.length; i += 4) {
      const group = writes.slice(i, i + 4).map((rows, k) => [i + k, 'calls.write', rows]);
      for (const outcome of applyWrites(db, group)) if (!outcome[1]) throw new Error(JSON.stringify(outcome[2]));
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const wal = fs.statSync(`${file}-wal`).size;
    db.close();
    console.log(
      JSON.stringify({
        tree,
        calls: CALLS,
        wall_ms: Math.round(wall),
        cpu_us_per_call: Math.round((cpu.user + cpu.system) / CALLS),
        cpu_user_us_per_call: Math.round(cpu.user / CALLS),
        wal_checkpoint_pages: pages,
        wal_kb_per_call: pages === 0 ? Math.round(wal / CALLS / 100) / 10 : null,
        load: os.loadavg()[0]!.toFixed(1),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
