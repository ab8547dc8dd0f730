import type { CsvValue } from './csv.js';

/** The columns of a calls CSV export, in order (docs/export.md). */
export const CALL_CSV_COLUMNS = [
  'id',
  'trace_id',
  'parent_id',
  'op_name',
  'display_name',
  'started_at',
  'ended_at',
  'status',
  'latency_ms',
  'exception',
  'tokens',
  'cost',
  'feedback',
  'inputs',
  'output',
  'attributes',
] as const;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Total tokens over `summary.usage`: `total_tokens`, else prompt + completion (or input + output). */
function tokens(summary: Json): number | null {
  if (!isObject(summary.usage)) return null;
  let total = 0;
  for (const usage of Object.values(summary.usage)) {
    if (!isObject(usage)) continue;
    total +=
      typeof usage.total_tokens === 'number'
        ? usage.total_tokens
        : num(usage.prompt_tokens ?? usage.input_tokens) + num(usage.completion_tokens ?? usage.output_tokens);
  }
  return total;
}

/** Sum of the priced costs of `summary.weave.costs` (null when no model was priced). */
function cost(weave: Json): number | null {
  if (!isObject(weave.costs)) return null;
  let total = 0;
  for (const entry of Object.values(weave.costs)) {
    if (!isObject(entry)) continue;
    total +=
      num(entry.prompt_tokens_total_cost) +
      num(entry.completion_tokens_total_cost) +
      num(entry.cache_read_input_tokens_total_cost) +
      num(entry.cache_creation_input_tokens_total_cost);
  }
  return total;
}

/** `type[:emoji]×count` per kind of feedback, by first appearance, joined by `; ` (empty when none). */
function feedbackSummary(weave: Json): string {
  if (!Array.isArray(weave.feedback)) return '';
  const counts = new Map<string, number>();
  for (const item of weave.feedback) {
    if (!isObject(item)) continue;
    const emoji = isObject(item.payload) && typeof item.payload.emoji === 'string' ? `:${item.payload.emoji}` : '';
    const key = `${String(item.feedback_type)}${emoji}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key}×${n}`).join('; ');
}

const jsonText = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/** The CSV cells of one call as `/calls/stream_query` returns it (with costs and feedback). */
export function callCsvValues(call: Json): CsvValue[] {
  const summary = isObject(call.summary) ? call.summary : {};
  const weave = isObject(summary.weave) ? summary.weave : {};
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return [
    text(call.id),
    text(call.trace_id),
    text(call.parent_id),
    text(call.op_name),
    text(call.display_name),
    text(call.started_at),
    text(call.ended_at),
    text(weave.status),
    typeof weave.latency_ms === 'number' ? weave.latency_ms : null,
    text(call.exception),
    tokens(summary),
    cost(weave),
    feedbackSummary(weave),
    jsonText(call.inputs),
    jsonText(call.output),
    jsonText(call.attributes),
  ];
}
