import type { CallRow } from './rows.js';
import { formatMicros } from './time.js';

/**
 * How a stored call reads back (docs/spec/calls.md §2.1, §2.6). Lines are assembled around the stored
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

export function deriveStatus(
  row: Pick<CallRow, 'exception' | 'ended_at'>,
  summary: Record<string, unknown>,
): TraceStatus {
  if (row.exception != null) return 'error';
  if (row.ended_at == null) return 'running';
  const counts = summary.status_counts as Record<string, unknown> | undefined;
  if (counts && typeof counts.error === 'number' && counts.error > 0) return 'descendant_error';
  return 'success';
}

/** The server-derived `weave` object of a summary (docs/spec/calls.md §2.6), keeping the client's other `weave` keys. */
function deriveWeave(
  row: Partial<CallRow>,
  stored: Record<string, unknown>,
  extras?: Record<string, unknown>,
): Record<string, unknown> {
  const clientWeave =
    stored.weave !== null && typeof stored.weave === 'object' && !Array.isArray(stored.weave)
      ? (stored.weave as Record<string, unknown>)
      : {};
  const { status: _s, latency_ms: _l, trace_name: _t, display_name: _d, ...keptWeave } = clientWeave;
  const weave: Record<string, unknown> = {
    ...keptWeave,
    status: deriveStatus({ exception: row.exception ?? null, ended_at: row.ended_at ?? null }, stored),
  };
  if (row.ended_at != null && row.started_at != null)
    weave.latency_ms = Math.floor((row.ended_at - row.started_at) / 1000);
  if (row.display_name) weave.display_name = row.display_name;
  else if (row.op_display_name != null) weave.trace_name = row.op_display_name;
  if (extras) Object.assign(weave, extras);
  return weave;
}

/** Stored summary plus the server-derived `weave` object. */
export function deriveSummary(row: Partial<CallRow>, extras?: Record<string, unknown>): Record<string, unknown> {
  const stored = row.summary ? (JSON.parse(row.summary) as Record<string, unknown>) : {};
  return { ...stored, weave: deriveWeave(row, stored, extras) };
}

const NO_SUMMARY: Record<string, unknown> = {};

/**
 * The summary as JSON text. When the stored text has no `weave` key the derived object is
 * spliced onto it, so the client's summary (usage, status counts…) is not re-serialised; it is
 * parsed only when the status depends on its `status_counts`.
 */
function summaryJson(row: CallRow, extras: Record<string, unknown> | undefined): string {
  const text = row.summary ?? '{}';
  if (text.includes('"weave"')) return JSON.stringify(deriveSummary(row, extras));
  const needsCounts = row.exception == null && row.ended_at != null && text.includes('"status_counts"');
  const weave = JSON.stringify(
    deriveWeave(row, needsCounts ? (JSON.parse(text) as Record<string, unknown>) : NO_SUMMARY, extras),
  );
  return text === '{}' ? `{"weave":${weave}}` : `${text.slice(0, -1)},"weave":${weave}}`;
}

const str = (value: string | null | undefined): string => (value == null ? 'null' : JSON.stringify(value));
const num = (value: number | null | undefined): string => (value == null ? 'null' : String(value));
const time = (value: number | null | undefined): string => (value == null ? 'null' : `"${formatMicros(value)}"`);

function attributesText(row: CallRow): string {
  const attributes = row.attributes ?? '{}';
  if (row.otel_dump == null) return attributes;
  return attributes === '{}'
    ? `{"otel_span":${row.otel_dump}}`
    : `${attributes.slice(0, -1)},"otel_span":${row.otel_dump}}`;
}

/** One call as JSON text. */
export function callToJson(row: CallRow, options: CallViewOptions): string {
  const columns = options.columns;
  // unselected fields read null (or `{}` for inputs/attributes), docs/spec/calls.md §5.6
  const all = columns === null;
  const has = (field: string): boolean => all || columns.has(field);
  const summary = summaryJson(row, options.weaveExtras?.(row));
  return (
    `{"id":${str(row.id)},"project_id":${str(row.project_id)},"op_name":${str(row.op_name)}` +
    `,"display_name":${all || has('display_name') ? str(row.display_name || null) : 'null'}` +
    `,"trace_id":${str(row.trace_id)},"parent_id":${all || has('parent_id') ? str(row.parent_id) : 'null'}` +
    `,"thread_id":${all || has('thread_id') ? str(row.thread_id) : 'null'},"turn_id":${all || has('turn_id') ? str(row.turn_id) : 'null'}` +
    `,"started_at":${time(row.started_at)}` +
    `,"attributes":${all || has('attributes') ? attributesText(row) : '{}'}` +
    `,"inputs":${all || has('inputs') ? (row.inputs ?? '{}') : '{}'}` +
    `,"ended_at":${all || has('ended_at') ? time(row.ended_at) : 'null'},"exception":${all || has('exception') ? str(row.exception) : 'null'}` +
    `,"output":${all || has('output') ? (row.output ?? 'null') : 'null'}` +
    `,"summary":${summary}` +
    `,"wb_user_id":${all || has('wb_user_id') ? str(row.wb_user_id) : 'null'},"wb_run_id":${all || has('wb_run_id') ? str(row.wb_run_id) : 'null'}` +
    `,"wb_run_step":${all || has('wb_run_step') ? num(row.wb_run_step) : 'null'},"wb_run_step_end":${all || has('wb_run_step_end') ? num(row.wb_run_step_end) : 'null'}` +
    `,"deleted_at":null` +
    `,"storage_size_bytes":${num(options.includeStorageSize ? row.storage_size_bytes : null)}` +
    `,"total_storage_size_bytes":${num(options.includeTotalStorageSize ? row.total_storage_size_bytes : null)}` +
    `,"wb_username":${str(options.includeUsernames ? (row.wb_username ?? null) : null)}` +
    `,"expire_at":null}`
  );
}
