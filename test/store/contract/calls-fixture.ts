import type { CallPart, TraceStore } from '../../../src/store/types.js';
import { end, start } from './parts.js';

/** 2023-11-14T22:13:20Z in microseconds. */
export const BASE = 1_700_000_000_000_000;
const S = 1_000_000;

/** The JSON texts written per call, for storage-size expectations. */
export const WRITTEN: Record<
  string,
  { attributes: string; inputs: string; output: string | null; summary: string | null }
> = {};

/**
 * Six calls of one project, written in the insertion order d, a, f, b, e, c (so insertion order,
 * start order and id order all differ):
 * - a: chat:v1 root of T1, Alpha, u1/r1, step 5, 2 ms, inputs with a ref, a nested object and a list
 * - b: chat:v2 child of a, u2, 0.5 ms, numeric and boolean strings
 * - c: embed:v1 child of b, running, non-ASCII prompt; starts with f
 * - d: embed:v1 root of T2, exception, 5 ms, a ref in its output
 * - e: plain-op root of T3, Zed, 0 ms, summary counts a descendant error
 * - f: chat:v1 root of T4, 3 ms
 */
export async function writeFixture(store: TraceStore, project: string): Promise<void> {
  const calls: Record<string, CallPart[]> = {
    d: [
      start(project, 'd', {
        op_name: 'weave:///e/p/op/embed:v1',
        trace_id: 'T2',
        started_at: BASE + 3 * S,
        wb_user_id: 'u1',
        wb_run_id: 'r2',
        inputs: '{"n":null}',
      }),
      end(project, 'd', {
        ended_at: BASE + 3 * S + 5000,
        exception: 'boom',
        output: '{"refs":["weave:///e/p/object/Doc:bbb"]}',
      }),
    ],
    a: [
      start(project, 'a', {
        op_name: 'weave:///e/p/op/chat:v1',
        trace_id: 'T1',
        started_at: BASE,
        display_name: 'Alpha',
        thread_id: 'th1',
        turn_id: 't1',
        wb_user_id: 'u1',
        wb_run_id: 'r1',
        wb_run_step: 5,
        attributes: '{"env":"prod"}',
        inputs:
          '{"prompt":"Hello World","n":3,"flag":true,"nested":{"k":"v"},"list":[10,"x"],"ref":"weave:///e/p/object/Doc:aaa"}',
      }),
      end(project, 'a', { ended_at: BASE + 2000, output: '"hi"', summary: '{}' }),
    ],
    f: [
      start(project, 'f', {
        op_name: 'weave:///e/p/op/chat:v1',
        trace_id: 'T4',
        started_at: BASE + 2 * S,
        inputs: '{"prompt":"B"}',
      }),
      end(project, 'f', { ended_at: BASE + 2 * S + 3000 }),
    ],
    b: [
      start(project, 'b', {
        op_name: 'weave:///e/p/op/chat:v2',
        trace_id: 'T1',
        parent_id: 'a',
        started_at: BASE + S,
        thread_id: 'th1',
        turn_id: 't2',
        wb_user_id: 'u2',
        inputs: '{"prompt":"hello","n":"12","flag":"false","nested":{"k":"w"},"list":[5]}',
      }),
      end(project, 'b', { ended_at: BASE + S + 500, output: '{"score":0.5}' }),
    ],
    e: [
      start(project, 'e', {
        op_name: 'plain-op',
        op_display_name: null,
        trace_id: 'T3',
        started_at: BASE + 4 * S,
        display_name: 'Zed',
      }),
      end(project, 'e', { ended_at: BASE + 4 * S, summary: '{"status_counts":{"error":2}}' }),
    ],
    c: [
      start(project, 'c', {
        op_name: 'weave:///e/p/op/embed:v1',
        trace_id: 'T1',
        parent_id: 'b',
        started_at: BASE + 2 * S,
        inputs: '{"n":7.5,"prompt":"Émile"}',
      }),
    ],
  };
  for (const [id, parts] of Object.entries(calls)) {
    await store.calls.write(parts);
    const s = parts[0] as Extract<CallPart, { kind: 'start' }>;
    const e = parts[1] as Extract<CallPart, { kind: 'end' }> | undefined;
    WRITTEN[id] = {
      attributes: s.attributes,
      inputs: s.inputs,
      output: e?.output ?? null,
      summary: e?.summary ?? null,
    };
  }
}

/** Storage bytes of one call as both stores count them: the compact JSON texts of its four JSON columns. */
export function storageBytes(id: string): number {
  const w = WRITTEN[id]!;
  return [w.attributes, w.inputs, w.output, w.summary].reduce(
    (sum, text) => sum + (text === null ? 0 : Buffer.byteLength(text)),
    0,
  );
}
