import type { CallRow } from '../store/types.js';
import { formatMicros } from './time.js';

/**
 * How a stored call reads back (calls spec §2.1, §2.6). Lines are assembled around the stored
 * JSON texts instead of parsing and re-serialising them, which keeps streaming cheap.
 */
export interface CallViewOptions {
  /** Top-level fields to fill; null = all. Unselected fields read `{}` (inputs, attributes) or null. */
  columns: ReadonlySet<string> | null;
  includeStorageSize: boolean;
  includeTotalStorageSize: boolean;
  /** Extra `summary.weave` keys per call (costs, feedback), added by later stages. */
  weaveExtras?: (row: CallRow) => Record<string, unknown> | undefined;
  /** Fill `wb_username` from the row (loaded when usernames were requested). */
  includeUsernames?: boolean;
}

export type TraceStatus = 'success' | 'error' | 'running' | 'descendant_error';

export function deriveStatus(row: Pick<CallRow, 'exception' | 'ended_at'>, summary: Record<string, unknown>): TraceStatus {
  if (row.exception != null) return 'error';
  if (row.ended_at == null) return 'running';
  const counts = summary.status_counts as Record<string, unknown> | undefined;
  if (counts && typeof counts.error === 'number' && counts.error > 0) return 'descendant_error';
  return 'success';
}

/** Stored summary plus the server-derived `weave` object. */
export function deriveSummary(row: Partial<CallRow>, extras?: Record<string, unknown>): Record<string, unknown> {
  const stored = row.summary ? (JSON.parse(row.summary) as Record<string, unknown>) : {};
  const clientWeave = stored.weave !== null && typeof stored.weave === 'object' && !Array.isArray(stored.weave) ? (stored.weave as Record<string, unknown>) : {};
  const { status: _s, latency_ms: _l, trace_name: _t, display_name: _d, ...keptWeave } = clientWeave;
  const weave: Record<string, unknown> = { ...keptWeave, status: deriveStatus({ exception: row.exception ?? null, ended_at: row.ended_at ?? null }, stored) };
  if (row.ended_at != null && row.started_at != null) weave.latency_ms = Math.floor((row.ended_at - row.started_at) / 1000);
  if (row.display_name) weave.display_name = row.display_name;
  else if (row.op_display_name != null) weave.trace_name = row.op_display_name;
  if (extras) Object.assign(weave, extras);
  return { ...stored, weave };
}

const str = (value: string | null | undefined): string => (value == null ? 'null' : JSON.stringify(value));
const num = (value: number | null | undefined): string => (value == null ? 'null' : String(value));
const time = (value: number | null | undefined): string => (value == null ? 'null' : `"${formatMicros(value)}"`);

function attributesText(row: CallRow): string {
  const attributes = row.attributes ?? '{}';
  if (row.otel_dump == null) return attributes;
  return attributes === '{}' ? `{"otel_span":${row.otel_dump}}` : `${attributes.slice(0, -1)},"otel_span":${row.otel_dump}}`;
}

/** One call as JSON text. */
export function callToJson(row: CallRow, options: CallViewOptions): string {
  const has = (field: string): boolean => options.columns === null || options.columns.has(field);
  const pick = <T>(field: string, value: T): T | null => (has(field) ? value : null);
  const summary = deriveSummary(row, options.weaveExtras?.(row));
  return (
    `{"id":${str(row.id)},"project_id":${str(row.project_id)},"op_name":${str(row.op_name)}` +
    `,"display_name":${str(pick('display_name', row.display_name) || null)}` +
    `,"trace_id":${str(row.trace_id)},"parent_id":${str(pick('parent_id', row.parent_id))}` +
    `,"thread_id":${str(pick('thread_id', row.thread_id))},"turn_id":${str(pick('turn_id', row.turn_id))}` +
    `,"started_at":${time(row.started_at)}` +
    `,"attributes":${has('attributes') ? attributesText(row) : '{}'}` +
    `,"inputs":${has('inputs') ? (row.inputs ?? '{}') : '{}'}` +
    `,"ended_at":${time(pick('ended_at', row.ended_at))},"exception":${str(pick('exception', row.exception))}` +
    `,"output":${has('output') ? (row.output ?? 'null') : 'null'}` +
    `,"summary":${JSON.stringify(summary)}` +
    `,"wb_user_id":${str(pick('wb_user_id', row.wb_user_id))},"wb_run_id":${str(pick('wb_run_id', row.wb_run_id))}` +
    `,"wb_run_step":${num(pick('wb_run_step', row.wb_run_step))},"wb_run_step_end":${num(pick('wb_run_step_end', row.wb_run_step_end))}` +
    `,"deleted_at":null` +
    `,"storage_size_bytes":${num(options.includeStorageSize ? row.storage_size_bytes : null)}` +
    `,"total_storage_size_bytes":${num(options.includeTotalStorageSize ? row.total_storage_size_bytes : null)}` +
    `,"wb_username":${str(options.includeUsernames ? (row.wb_username ?? null) : null)}` +
    `,"expire_at":null}`
  );
}
