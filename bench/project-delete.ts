import { callParts, openBenchStore, seed } from './lib/bench-store.js';
import type { CallPart } from '../src/store/types.js';

/**
 * Project deletion at scale (docs/export.md "Project deletion"): N calls (default 100,000, ~1 KB of
 * inputs each) in the project deleted, 1,000 in a second project, then the deletion timed while a
 * writer keeps ingesting 10-call batches into the second project; the slowest of those writes shows
 * how long ingest waited on the deletion. Usage: tsx bench/project-delete.ts [sqlite|postgres] [N]
 */

const STORE = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const N = Number(process.argv[3] ?? 100_000);
const T0 = Date.UTC(2025, 0, 1) * 1000;

const { store, dispose } = await openBenchStore(STORE, 'delete');
try {
  let t = performance.now();
  await store.auth.ensureProject('acme/gone', 'acme', 'u');
  await seed(store, 'acme/gone', N, T0);
  await seed(store, 'acme/kept', 1000, T0);
  process.stdout.write(`${STORE}: seeded ${N} calls in ${Math.round(performance.now() - t)} ms\n`);

  let writing = true;
  const latencies: number[] = [];
  const writer = (async () => {
    for (let k = 0; writing; k++) {
      const parts: CallPart[] = [];
      for (let j = 0; j < 10; j++) parts.push(...callParts('acme/kept', `w${k}-${j}`, k * 10 + j, T0));
      const started = performance.now();
      await store.calls.write(parts);
      latencies.push(performance.now() - started);
    }
  })();
  t = performance.now();
  const deleted = await store.projectData.deleteProject('acme/gone');
  const elapsed = performance.now() - t;
  writing = false;
  await writer;
  const remaining = Object.values(await store.projectData.rowCounts('acme/gone')).reduce((a, b) => a + b, 0);
  latencies.sort((a, b) => a - b);
  const pct = (p: number): string => (latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(1);
  process.stdout.write(
    `${STORE}: deleted ${deleted.calls} calls in ${Math.round(elapsed)} ms ` +
      `(${Math.round((deleted.calls ?? 0) / (elapsed / 1000))} calls/s), remaining rows ${remaining}; ` +
      `concurrent 10-call writes: ${latencies.length}, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms\n`,
  );
} finally {
  await dispose();
}
