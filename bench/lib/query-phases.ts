import path from 'node:path';
import { parseIsoMicros } from '../../src/domain/time.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { LoadClient, quantile } from './load.js';
import { measure, type PhaseResult } from './measure.js';
import type { ChildServer } from './processes.js';
import { CALLS_PER_TRACE, makeCalls, opRefs, toParts, type OpRefs } from './workload.js';

/** The read phases: streaming a whole project, seeding a large store, first-page latency. */

/** Streams every call of `project` through /calls/stream_query `runs` times; reports the median run. */
export async function streamPhase(
  server: ChildServer,
  apiKey: string,
  project: string,
  expected: number,
  runs: number,
): Promise<PhaseResult> {
  const client = new LoadClient(server.url, apiKey, 1);
  const body = JSON.stringify({ project_id: project });
  try {
    const results: PhaseResult[] = [];
    let bytes = 0;
    for (let run = 0; run < runs; run += 1) {
      results.push(
        await measure(`stream_query, all ${expected} calls of one project`, expected, server, async () => {
          const reply = await client.postOk('/calls/stream_query', body);
          if (reply.lines !== expected)
            throw new Error(`stream_query returned ${reply.lines} lines, expected ${expected}`);
          bytes = reply.bytes;
        }),
      );
    }
    const sorted = [...results].sort((a, b) => a.seconds - b.seconds);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const peak = Math.max(...results.map((r) => r.serverPeakRss ?? 0));
    return {
      ...median,
      serverPeakRss: peak || null,
      extra: {
        runs,
        best_calls_per_s: Math.round(sorted[0]!.perSecond),
        mib_per_s: Math.round(bytes / 1024 / 1024 / median.seconds),
        bytes_per_call: Math.round(bytes / expected),
      },
    };
  } finally {
    client.close();
  }
}

/** One trace in this many has the rare root op: 1 call in 1,000 (the root of 1 trace of 5 calls in 200). */
export const RARE_EVERY = 200;

export interface SeedInfo {
  project: string;
  ops: OpRefs;
  result: PhaseResult;
}

/**
 * Writes `count` calls straight into a store at `dataDir` in big batches (the fast way to get a
 * large database for the latency phase). Calls are spread over 30 days; the root op has 3 versions,
 * and one call in 1,000 belongs to a rare op.
 */
export async function seedStore(dataDir: string, count: number, chunkCalls: number): Promise<SeedInfo> {
  const project = 'bench/stored';
  const ops = opRefs(project, 3);
  const traces = Math.ceil(count / CALLS_PER_TRACE);
  const spacing = Math.floor((30 * 86_400 * 1e6) / traces);
  const from = Date.UTC(2025, 4, 1) * 1000;
  const store = new SqliteStore({ file: path.join(dataDir, 'heddle.sqlite') });
  const micros = (iso: string): number => parseIsoMicros(iso)!;
  // whole traces per chunk, so trace numbering (which picks root ops) continues across chunks
  const chunk = Math.max(CALLS_PER_TRACE, chunkCalls - (chunkCalls % CALLS_PER_TRACE));
  try {
    await store.migrate();
    const result = await measure('seed store (calls.write, big batches, incl. generating)', count, null, async () => {
      for (let written = 0; written < count; written += chunk) {
        const n = Math.min(chunk, count - written);
        const start = from + (written / CALLS_PER_TRACE) * spacing;
        const calls = makeCalls(project, ops, n, start, spacing, {
          rareEvery: RARE_EVERY,
          firstTrace: written / CALLS_PER_TRACE,
        });
        await store.calls.write(toParts(calls, 'bench-user', micros));
      }
    });
    return { project, ops, result };
  } finally {
    await store.close();
  }
}

/** Sequential first-page requests (limit 100, op filter, newest first); median and p95 in ms. */
export async function latencyPhase(
  server: ChildServer,
  apiKey: string,
  name: string,
  query: Record<string, unknown>,
  warmup: number,
  requests: number,
  expectedLines = 100,
): Promise<PhaseResult> {
  const client = new LoadClient(server.url, apiKey, 1);
  const body = Buffer.from(
    JSON.stringify({ ...query, sort_by: [{ field: 'started_at', direction: 'desc' }], limit: 100 }),
  );
  const timings: number[] = [];
  try {
    const once = async (): Promise<number> => {
      const t0 = performance.now();
      const reply = await client.postOk('/calls/stream_query', body);
      const ms = performance.now() - t0;
      if (reply.lines !== expectedLines)
        throw new Error(`${name}: first page has ${reply.lines} calls, expected ${expectedLines}`);
      return ms;
    };
    for (let i = 0; i < warmup; i += 1) await once();
    const result = await measure(name, requests, server, async () => {
      for (let i = 0; i < requests; i += 1) timings.push(await once());
    });
    return {
      ...result,
      extra: {
        median_ms: round2(quantile(timings, 0.5)),
        p95_ms: round2(quantile(timings, 0.95)),
        max_ms: round2(Math.max(...timings)),
      },
    };
  } finally {
    client.close();
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
