import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { mapExport } from '../../src/ingest/otel/export-mapping.js';
import { decodeOtlpProtobuf } from '../../src/ingest/otel/otlp-protobuf.js';
import { opObjectId } from '../../src/ingest/otel/span-call.js';
import { otelCallParts } from '../../src/services/otel-service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { CallPart } from '../../src/store/types.js';
import { LoadClient, runPool } from './load.js';
import { measure, type PhaseResult } from './measure.js';
import type { OtlpWorkload } from './otel-workload.js';
import type { ChildServer } from './processes.js';

/** The phases of the OTel ingest benchmark: raw store, and one OTLP receiver under the shared load. */

export const OTLP_PATH_HEDDLE = '/otel/v1/traces';
export const OTLP_PATH_PHOENIX = '/v1/traces';
const PROTOBUF = 'application/x-protobuf';
/** A placeholder op digest for the raw phase (the store does not resolve op refs). */
const RAW_DIGEST = 'rawbenchdigest';

/**
 * Each body's store parts, as Heddle's OTel service makes them (decode → span mapping → a start and
 * an end part per span), built before the clock starts.
 */
export function partsOf(work: OtlpWorkload, userId: string): CallPart[][] {
  return work.bodies.map((body) => {
    const mapped = mapExport(decodeOtlpProtobuf(body), { projectId: null, wbRunId: null });
    if (mapped.rejected.length > 0) throw new Error(`the workload has rejected spans: ${mapped.rejected[0]!.reason}`);
    return mapped.calls.flatMap(({ projectId, call }) =>
      otelCallParts(userId, projectId, `weave:///${projectId}/op/${opObjectId(call.span_name)}:${RAW_DIGEST}`, call),
    );
  });
}

function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** The same spans' rows straight into a fresh SqliteStore: one calls.write per body, `concurrency` in flight. */
export async function rawStorePhase(
  work: OtlpWorkload,
  warmup: OtlpWorkload,
  concurrency: number,
): Promise<PhaseResult> {
  const parts = partsOf(work, 'bench-user');
  const warmParts = partsOf(warmup, 'bench-user');
  // the mapping's garbage would otherwise be collected inside the timed writes
  collectGarbage();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-bench-otel-raw-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  try {
    await store.migrate();
    await runPool(warmParts.length, concurrency, (i) => store.calls.write(warmParts[i]!));
    return await measure('raw store: calls.write of the mapped spans (no HTTP, no decoding)', work.spans, null, () =>
      runPool(parts.length, concurrency, (i) => store.calls.write(parts[i]!)),
    );
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface Sent {
  /** Seconds from the first request until the last 2xx. */
  acceptedSeconds: number;
  /** Answers 503/429 (receiver at capacity) that were retried, as OTLP exporters do. */
  retries: number;
}

/**
 * Posts every body (protobuf) with `concurrency` in flight. A 503 or 429 is retried after
 * Retry-After or a short backoff (OTLP/HTTP exporters retry these); anything else but 200 fails.
 */
export async function postAll(
  client: LoadClient,
  urlPath: string,
  bodies: Buffer[],
  concurrency: number,
): Promise<Sent> {
  const t0 = performance.now();
  let retries = 0;
  await runPool(bodies.length, concurrency, async (i) => {
    for (let attempt = 1; ; attempt += 1) {
      const reply = await client.post(urlPath, bodies[i]!);
      if (reply.status === 200) return;
      if ((reply.status !== 503 && reply.status !== 429) || attempt > 1000) {
        throw new Error(`POST ${urlPath} answered ${reply.status} (attempt ${attempt}): ${reply.text?.slice(0, 500)}`);
      }
      retries += 1;
      await new Promise((r) => setTimeout(r, Math.min(1000, 50 * attempt)));
    }
  });
  return { acceptedSeconds: (performance.now() - t0) / 1000, retries };
}

/** Polls `count` every `everyMs` until it reaches `target`; fails when it stops growing for `stallMs`. */
export async function waitForCount(
  count: () => Promise<number> | number,
  target: number,
  everyMs = 50,
  stallMs = 180_000,
): Promise<number> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const n = await count();
    if (n >= target) return n;
    if (n !== last) {
      last = n;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      throw new Error(`stored spans stopped at ${n} of ${target}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface Receiver {
  name: string;
  server: ChildServer;
  apiKey: string | null;
  urlPath: string;
  /** Spans of the receiver's store that a user can query now (whatever the project). */
  storedSpans: () => Promise<number> | number;
}

/**
 * The warm-up bodies (then waits until they are stored), then the measured load: the clock runs
 * from the first request until every span is stored and queryable (`storedSpans` reaches the
 * warm-up plus the workload), not just until the last 200.
 */
export async function receiverPhase(
  r: Receiver,
  work: OtlpWorkload,
  warmup: OtlpWorkload,
  concurrency: number,
): Promise<PhaseResult> {
  const client = new LoadClient(r.server.url, r.apiKey, concurrency, PROTOBUF);
  try {
    await postAll(client, r.urlPath, warmup.bodies, concurrency);
    const base = await waitForCount(r.storedSpans, warmup.spans);
    if (base !== warmup.spans)
      throw new Error(`${r.name}: ${base} spans stored after the warm-up, expected ${warmup.spans}`);
    let sent: Sent = { acceptedSeconds: 0, retries: 0 };
    const result = await measure(
      `${r.name}: OTLP protobuf over HTTP (${work.spansPerBody} spans per request, ${concurrency} in flight)`,
      work.spans,
      r.server,
      async () => {
        sent = await postAll(client, r.urlPath, work.bodies, concurrency);
        await waitForCount(r.storedSpans, warmup.spans + work.spans);
      },
    );
    const stored = Number(await r.storedSpans()) - warmup.spans;
    if (stored !== work.spans) throw new Error(`${r.name}: ${stored} spans stored, expected ${work.spans}`);
    return {
      ...result,
      extra: {
        accepted_s: sent.acceptedSeconds.toFixed(2),
        accepted_spans_per_s: Math.round(work.spans / sent.acceptedSeconds),
        retried_503: sent.retries,
        requests: work.bodies.length,
      },
    };
  } finally {
    client.close();
  }
}
