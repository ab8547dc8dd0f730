import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseIsoMicros } from '../../src/domain/time.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { CallPart } from '../../src/store/types.js';
import { LoadClient, runPool } from './load.js';
import { measure, type PhaseResult } from './measure.js';
import type { ChildServer } from './processes.js';
import { batchBody, makeCalls, opRefs, toParts, type GenCall } from './workload.js';

/** The write phases: raw store, bare HTTP baselines, Heddle batch and unbatched ingest. */

export interface Batch {
  body: Buffer;
  parts: CallPart[];
  calls: number;
}

export interface Workload {
  project: string;
  batches: Batch[];
  calls: number;
  bytesPerCall: number;
}

const micros = (iso: string): number => parseIsoMicros(iso)!;
/** The user id the raw store phase writes; HTTP writes carry the admin user's id instead. */
const RAW_USER = 'bench-user';
const BASE_MICROS = Date.UTC(2025, 5, 1) * 1000;

/** `calls` calls of `project` cut into batches of `batchCalls` calls (2 items each: start and end). */
export function buildWorkload(project: string, calls: number, batchCalls: number): Workload {
  const ops = opRefs(project, 3);
  const all = makeCalls(project, ops, calls, BASE_MICROS, 3_000_000);
  const batches: Batch[] = [];
  for (let i = 0; i < all.length; i += batchCalls) {
    const slice = all.slice(i, i + batchCalls);
    batches.push({ body: Buffer.from(batchBody(slice)), parts: toParts(slice, RAW_USER, micros), calls: slice.length });
  }
  const bytes = batches.reduce((sum, b) => sum + b.body.length, 0);
  return { project, batches, calls: all.length, bytesPerCall: bytes / all.length };
}

/** Writes every batch's parts straight into a fresh SqliteStore, `concurrency` writes in flight. */
export async function rawStorePhase(work: Workload, warmup: Workload, concurrency: number): Promise<PhaseResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-raw-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  try {
    await store.migrate();
    await runPool(warmup.batches.length, concurrency, (i) => store.calls.write(warmup.batches[i]!.parts));
    return await measure('raw store write (calls.write, same parts)', work.calls, null, () =>
      runPool(work.batches.length, concurrency, (i) => store.calls.write(work.batches[i]!.parts)),
    );
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Posts every batch body to `/call/upsert_batch` of `server` (after the warm-up batches),
 * `rounds` times over (only for stateless baselines: a second round would rewrite the same calls).
 */
export async function batchPhase(
  name: string,
  server: ChildServer,
  apiKey: string | null,
  work: Workload,
  warmup: Workload,
  concurrency: number,
  rounds = 1,
): Promise<PhaseResult> {
  const client = new LoadClient(server.url, apiKey, concurrency);
  try {
    const first = await client.postOk('/call/upsert_batch', warmup.batches[0]!.body, true);
    const answered = (JSON.parse(first.text!) as { res: unknown[] }).res.length;
    if (answered !== warmup.batches[0]!.calls * 2)
      throw new Error(`${name}: expected ${warmup.batches[0]!.calls * 2} results, got ${answered}`);
    await runPool(warmup.batches.length - 1, concurrency, async (i) => {
      await client.postOk('/call/upsert_batch', warmup.batches[i + 1]!.body);
    });
    const n = work.batches.length;
    const result = await measure(name, work.calls * rounds, server, () =>
      runPool(n * rounds, concurrency, async (i) => {
        await client.postOk('/call/upsert_batch', work.batches[i % n]!.body);
      }),
    );
    return rounds > 1 ? { ...result, extra: { rounds } } : result;
  } finally {
    client.close();
  }
}

/** Start+end bodies for single-call requests. */
export function buildUnbatched(project: string, calls: number): Array<{ start: Buffer; end: Buffer }> {
  const all: GenCall[] = makeCalls(project, opRefs(project, 1), calls, BASE_MICROS, 3_000_000);
  return all.map((c) => ({
    start: Buffer.from(JSON.stringify({ start: c.start })),
    end: Buffer.from(JSON.stringify({ end: c.end })),
  }));
}

/** `clients` concurrent clients, each sending /call/start then /call/end for its next call. */
export async function unbatchedPhase(
  server: ChildServer,
  apiKey: string,
  warmup: Array<{ start: Buffer; end: Buffer }>,
  work: Array<{ start: Buffer; end: Buffer }>,
  clients: number,
): Promise<PhaseResult> {
  const client = new LoadClient(server.url, apiKey, clients);
  const pair = async (call: { start: Buffer; end: Buffer }): Promise<void> => {
    await client.postOk('/call/start', call.start);
    await client.postOk('/call/end', call.end);
  };
  try {
    await runPool(warmup.length, clients, (i) => pair(warmup[i]!));
    const result = await measure(`unbatched /call/start + /call/end (${clients} clients)`, work.length, server, () =>
      runPool(work.length, clients, (i) => pair(work[i]!)),
    );
    return { ...result, extra: { requests_per_s: Math.round((2 * work.length) / result.seconds) } };
  } finally {
    client.close();
  }
}
