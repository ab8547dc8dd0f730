import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The call indexer's rate on SQLite (docs/query-performance.md "Equality on an input field"):
 * BENCH_CALLS calls of bench/lib/workload.ts (~1 KB each) written through `calls.write` into a fresh
 * store, then `callText.step` until nothing is left, as the background indexer does when the store
 * is idle. Reports calls/s (wall) and CPU µs per call of the indexing alone.
 *
 * BENCH_TREE points at another checkout (its `src/` and `bench/lib/` are imported), so the indexer
 * before a change can be measured in the same session, alternating:
 *   BENCH_TREE=/path/to/other-checkout npx tsx bench/indexer-rate.ts
 */

const tree = path.resolve(process.env.BENCH_TREE ?? path.join(import.meta.dirname, '..'));
const CALLS = Number(process.env.BENCH_CALLS ?? 30_000);
/** Calls per `calls.write` of the seed (one `change_seq` each; bench/query-scale.ts writes 10,000). */
const WRITE_CALLS = Number(process.env.BENCH_WRITE_CALLS ?? 1_000);
/**
 * BENCH_DISPLAY_NAMES=1: every other call named from 1,000 names (as bench/display-sort.ts does), so
 * that the `call_display` entries (migration 021) land at random places of their key; the workload's
 * names are all NULL otherwise.
 */
const NAMED = process.env.BENCH_DISPLAY_NAMES === '1';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

interface Store {
  migrate(): Promise<void>;
  close(): Promise<void>;
  calls: { write(parts: unknown[]): Promise<void> };
  callText: { step(): Promise<{ calls: number; project: string | null }> };
}

async function main(): Promise<void> {
  const { SqliteStore } = await load<{ SqliteStore: new (o: { file: string }) => Store }>(
    'src/store/sqlite/sqlite-store.ts',
  );
  const workload = await load<typeof import('./lib/workload.js')>('bench/lib/workload.ts');
  const time = await load<typeof import('../src/domain/time.js')>('src/domain/time.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-indexer-rate-'));
  try {
    const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
    await store.migrate();
    const ops = workload.opRefs('bench/index', 3);
    const calls = workload.makeCalls('bench/index', ops, CALLS, Date.UTC(2025, 4, 1) * 1000, 50_000);
    let n = 0;
    for (let i = 0; i < calls.length; i += 1_000) {
      const parts = workload.toParts(calls.slice(i, i + 1_000), 'bench-user', (iso) => time.parseIsoMicros(iso)!);
      if (NAMED)
        for (const part of parts as Array<{ kind: string; display_name: string | null }>)
          if (part.kind === 'start')
            part.display_name = n++ % 2 === 0 ? `run-${String((n * 7_919) % 1_000).padStart(4, '0')}` : null;
      await store.calls.write(parts);
    }
    // the writer runs in its own thread: process CPU covers it and this thread
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let indexed = 0;
    let steps = 0;
    for (;;) {
      const step = await store.callText.step();
      if (step.project === null) break;
      indexed += step.calls;
      steps += 1;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await store.close();
    console.log(
      JSON.stringify({
        tree,
        calls: CALLS,
        write_calls: WRITE_CALLS,
        named: NAMED,
        indexed,
        steps,
        wall_ms: Math.round(wall),
        calls_per_s: Math.round(indexed / (wall / 1000)),
        cpu_us_per_call: Math.round((cpu.user + cpu.system) / indexed),
        load: os.loadavg()[0]!.toFixed(1),
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
