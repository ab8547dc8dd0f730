import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * CPU per call of the call roll-up's JavaScript on PostgreSQL's write path (docs/query-performance.md,
 * "PostgreSQL: roll-up changes appended"): `newCallsParams` (the delta, the pending rows' JSON, the
 * hour counters) and `pg`'s `prepareValue` of each parameter, as the driver does, over bench/ingest's
 * parts (100-call batches merged as the writer merges them). Several checkouts in one process, their
 * rounds alternating, so load on a shared machine falls on each alike.
 *
 *   npm run build:server   # in every checkout: the compiled dist/ is what is measured
 *   BENCH_TREES=/path/before,. npx tsx bench/pg-rollup-params-cpu.ts
 *
 * BENCH_ROUNDS (9), BENCH_REPS (5: passes over 20,000 calls per round).
 */

const specs = (process.env.BENCH_TREES ?? '.').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const REPS = Number(process.env.BENCH_REPS ?? 5);

interface Tree {
  name: string;
  batches: unknown[][];
  run: (rows: unknown[]) => unknown;
  results: number[];
}

const importFrom = async <T>(tree: string, rel: string): Promise<T> =>
  (await import(pathToFileURL(path.join(tree, rel)).href)) as T;

async function main(): Promise<void> {
  const phases = await import('./lib/ingest-phases.js');
  const work = phases.buildWorkload('bench/ingest', 20_000, 100);
  const trees: Tree[] = [];
  for (const spec of specs) {
    const tree = path.resolve(spec);
    const { prepareValue } = (
      createRequire(path.join(tree, 'package.json'))('pg') as {
        utils: { prepareValue(v: unknown): unknown };
      }
    ).utils;
    const merge = await importFrom<{ mergeParts(parts: unknown[]): unknown[] }>(
      tree,
      'dist/store/postgres/call-merge.js',
    );
    const writes = await importFrom<{ newCallsParams(rows: unknown[]): unknown }>(
      tree,
      'dist/store/postgres/rollup-writes.js',
    );
    // before `pgjs` newCallsParams returned the parameter array itself
    const run = (rows: unknown[]): unknown => {
      const params = writes.newCallsParams(rows) as unknown[] | { values: unknown[] };
      return (Array.isArray(params) ? params : params.values).map((v) => prepareValue(v));
    };
    trees.push({ name: spec, batches: work.batches.map((b) => merge.mergeParts(b.parts)), run, results: [] });
  }
  for (const t of trees) for (const rows of t.batches) t.run(rows); // warm-up
  for (let round = 0; round < ROUNDS; round += 1)
    for (const t of trees) {
      const before = process.cpuUsage();
      for (let rep = 0; rep < REPS; rep += 1) for (const rows of t.batches) t.run(rows);
      const used = process.cpuUsage(before);
      t.results.push((used.user + used.system) / (REPS * work.calls));
    }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const t of trees)
    process.stdout.write(
      `${t.name}: median ${median(t.results).toFixed(2)} µs per call; rounds ${t.results.map((x) => x.toFixed(2)).join(' ')}\n`,
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`pg-rollup-params-cpu failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
