import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { mergeParts, upsertParams } from '../../src/store/postgres/call-merge.js';
import type { CallPart } from '../../src/store/types.js';

/** COPY of finished call rows into PostgreSQL: the raw write limit, and the fast way to seed a big store. */

/** The columns upsertParams fills, in its order. */
export const COPY_COLUMNS = [
  'project_id',
  'id',
  'display_name',
  'op_name',
  'op_display_name',
  'trace_id',
  'parent_id',
  'thread_id',
  'turn_id',
  'wb_user_id',
  'wb_run_id',
  'started_at',
  'wb_run_step',
  'attributes',
  'inputs',
  'otel_dump',
  'ended_at',
  'exception',
  'output',
  'summary',
  'wb_run_step_end',
  'latency_ms',
];

/** COPY text format: tab-separated, `\N` for NULL, backslash escapes. */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** `latency_ms` as the writers store it (src/store/sql/calls-query/latency.ts): whole ms, floored. */
function latencyMs(ended: unknown, started: unknown): number | null {
  if (typeof ended !== 'number' || typeof started !== 'number') return null;
  return Math.floor((ended - started) / 1000);
}

/**
 * The finished rows of these parts (start and end merged, as calls.write stores them) as COPY text
 * chunks (`call_values` is the call indexer's, not the writers': docs/query-performance.md).
 */
export function copyChunks(parts: readonly CallPart[], rowsPerChunk = 5000): Buffer[] {
  const merged = mergeParts(parts);
  const columns = upsertParams(merged);
  const started = COPY_COLUMNS.indexOf('started_at');
  const ended = COPY_COLUMNS.indexOf('ended_at');
  columns.push(columns[0]!.map((_, r) => latencyMs(columns[ended]![r], columns[started]![r])));
  const rows = columns[0]!.length;
  const chunks: Buffer[] = [];
  for (let from = 0; from < rows; from += rowsPerChunk) {
    const lines: string[] = [];
    for (let r = from; r < Math.min(rows, from + rowsPerChunk); r += 1)
      lines.push(`${columns.map((column) => copyField(column[r])).join('\t')}\n`);
    chunks.push(Buffer.from(lines.join('')));
  }
  return chunks;
}

/** COPY FROM STDIN of these chunks on one connection. */
export async function copyCalls(client: pg.Client, chunks: Buffer[]): Promise<void> {
  const sink = client.query(copyFrom(`COPY calls (${COPY_COLUMNS.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks), sink);
}
