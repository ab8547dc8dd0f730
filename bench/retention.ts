import { callParts, openBenchStore, seed } from './lib/bench-store.js';
import type { CallPart, TraceStore } from '../src/store/types.js';
import { applyCutoff } from '../src/services/retention/retention-job.js';

/**
 * Retention at scale (docs/export.md "Retention"): N calls (default 100,000, ~1 KB of inputs each)
 * 60 days old in a project, then a retention run (keep 30 days: every one of them goes) timed while a
 * writer keeps ingesting 10-call batches of new calls into the same project. The writes' latency
 * during the run is compared with the same writes with no run (the baseline, measured first), and
 * the run's space report says what was given back. Usage: tsx bench/retention.ts [sqlite|postgres] [N]
 */

const STORE = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const N = Number(process.argv[3] ?? 100_000);
const DAY = 86_400_000_000;
const T0 = Date.now() * 1000 - 60 * DAY;

const P = 'acme/demo';

/** 10-call writes of new calls into the project until `until` resolves; their latencies in ms. */
async function writeWhile(store: TraceStore, until: Promise<unknown>, tag: string): Promise<number[]> {
  let writing = true;
  void until.finally(() => (writing = false));
  const latencies: number[] = [];
  const now = Date.now() * 1000;
  for (let k = 0; writing; k++) {
    const parts: CallPart[] = [];
    for (let j = 0; j < 10; j++)
      parts.push(
        ...callParts(P, `${tag}${k}-${j}`, 0, T0).map((p) => ({
          ...p,
          ...(p.kind === 'start' ? { started_at: now + k } : {}),
        })),
      );
    const started = performance.now();
    await store.calls.write(parts);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

const pct = (l: number[], p: number): string => (l[Math.floor((l.length - 1) * p)] ?? 0).toFixed(1);
const describe = (l: number[]): string =>
  `${l.length} writes, p50 ${pct(l, 0.5)} ms, p99 ${pct(l, 0.99)} ms, max ${pct(l, 1)} ms`;

const { store, dispose } = await openBenchStore(STORE, 'retention');
try {
  let t = performance.now();
  await store.auth.ensureProject(P, 'acme', 'u');
  await seed(store, P, N, T0);
  process.stdout.write(`${STORE}: seeded ${N} calls in ${Math.round(performance.now() - t)} ms\n`);
  const baseline = await writeWhile(store, new Promise((resolve) => setTimeout(resolve, 3000)), 'b');
  t = performance.now();
  const run = applyCutoff(store.retention, P, Date.now() * 1000 - 30 * DAY);
  const during = await writeWhile(store, run, 'w');
  const result = await run;
  const elapsed = performance.now() - t;
  const left = (await store.retention.countExpired(P, Date.now() * 1000 - 30 * DAY)).calls;
  process.stdout.write(
    `${STORE}: retention deleted ${result.deleted.calls} calls in ${Math.round(elapsed)} ms ` +
      `(${Math.round(result.deleted.calls / (elapsed / 1000))} calls/s, ${result.batches} batches), expired left ${left}; ` +
      `space: ${result.space.mode}, ${(result.space.bytes_released / 2 ** 20).toFixed(1)} MiB released\n` +
      `${STORE}: 10-call writes without a run (3 s): ${describe(baseline)}\n` +
      `${STORE}: 10-call writes during the run: ${describe(during)}\n`,
  );
} finally {
  await dispose();
}
