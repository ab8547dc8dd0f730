/**
 * What the call roll-up (docs/call-rollups.md) costs at ingest, measured in one process against a
 * baseline checkout without it (`npx tsx bench/rollup-ingest.ts`; not in `npm run bench`, it needs
 * the baseline): the same batches (bench/lib/ingest-phases.ts `buildWorkload`: 5-call traces with
 * usage, 1 KB inputs and outputs, start and end in one batch) written straight through
 * `store.calls.write` into a fresh SQLite store and a fresh PostgreSQL database, by this tree's
 * store and by the baseline's, alternating, BENCH_ROUNDS rounds each; the median calls/s of each.
 *
 * Knobs: BENCH_BASELINE_DIR (required: a checkout of the commit to compare with, e.g.
 * `git archive <commit> | tar -x -C /tmp/heddle-base` with this tree's node_modules linked in),
 * BENCH_CALLS (default 100,000), BENCH_BATCH (calls per write, default 500), BENCH_CONCURRENCY
 * (writes in flight, default 4), BENCH_ROUNDS (default 3), BENCH_STORES (default `sqlite,postgres`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { buildWorkload, type Workload } from './lib/ingest-phases.js';
import { quantile } from './lib/load.js';
import { machineInfo } from './lib/report.js';

interface StoreLike {
  migrate(): Promise<void>;
  close(): Promise<void>;
  calls: { write(parts: unknown[]): Promise<void> };
}
type Open = (where: string) => StoreLike;

const baseDir = process.env.BENCH_BASELINE_DIR;
if (!baseDir) throw new Error('BENCH_BASELINE_DIR must name a checkout of the baseline commit');
const CALLS = Number(process.env.BENCH_CALLS ?? '100000');
const BATCH = Number(process.env.BENCH_BATCH ?? '500');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '4');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '3');
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');

async function opener(root: string, kind: string): Promise<Open> {
  if (kind === 'sqlite') {
    const mod = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sqlite-store.ts')).href)) as {
      SqliteStore: new (o: { file: string }) => StoreLike;
    };
    return (file) => new mod.SqliteStore({ file });
  }
  const mod = (await import(pathToFileURL(path.join(root, 'src/store/postgres/postgres-store.ts')).href)) as {
    PostgresStore: new (o: { url: string }) => StoreLike;
  };
  return (url) => new mod.PostgresStore({ url });
}

async function pool(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** calls/s of one fresh store writing the whole workload. */
async function once(kind: string, open: Open, work: Workload): Promise<number> {
  let where: string;
  let release: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-rollup-'));
    where = path.join(dir, 'heddle.sqlite');
    release = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const db = await createTestDatabase();
    where = db.url;
    release = () => db.release();
  }
  const store = open(where);
  try {
    await store.migrate();
    const t0 = performance.now();
    await pool(work.batches.length, CONCURRENCY, (i) => store.calls.write(work.batches[i]!.parts));
    return work.calls / ((performance.now() - t0) / 1000);
  } finally {
    await store.close();
    await release();
  }
}

async function main(): Promise<void> {
  const work = buildWorkload('bench/rollup', CALLS, BATCH);
  const lines: string[] = [];
  for (const kind of STORES) {
    const impls: Array<[string, Open]> = [
      ['baseline', await opener(path.resolve(baseDir!), kind)],
      ['roll-up', await opener(path.resolve(import.meta.dirname, '..'), kind)],
    ];
    const rates = new Map<string, number[]>(impls.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round += 1)
      for (const [name, open] of round % 2 === 0 ? impls : [...impls].reverse()) {
        const rate = await once(kind, open, work);
        rates.get(name)!.push(rate);
        console.error(`[rollup-ingest] ${kind} ${name} round ${round + 1}: ${Math.round(rate)} calls/s`);
      }
    const base = quantile(rates.get('baseline')!, 0.5);
    const rolled = quantile(rates.get('roll-up')!, 0.5);
    lines.push(
      `| ${kind} | ${Math.round(base).toLocaleString('en-US')} | ${Math.round(rolled).toLocaleString('en-US')} | ${((rolled / base) * 100).toFixed(1)} % |`,
    );
  }
  const m = machineInfo();
  console.log(
    [
      `# Roll-up ingest cost (bench/rollup-ingest.ts)`,
      '',
      `${CALLS.toLocaleString('en-US')} calls in writes of ${BATCH}, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds; ${m.cpus}, load at start ${m.load_at_start}, commit ${m.commit}.`,
      '',
      '| Store | Baseline calls/s | With roll-up calls/s | Ratio |',
      '|---|---:|---:|---:|',
      ...lines,
    ].join('\n'),
  );
}

await main();
