import { isRecord } from './is-record.js';

/** The call record as `/calls/stream_query` and `/call/read` render it (calls spec §2.1). */
export interface Call {
  id: string;
  project_id: string;
  op_name: string;
  display_name: string | null;
  trace_id: string;
  parent_id: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: string;
  ended_at: string | null;
  exception: string | null;
  attributes: Record<string, unknown>;
  inputs: Record<string, unknown>;
  output: unknown;
  summary: CallSummary | null;
  wb_user_id?: string | null;
  wb_run_id?: string | null;
}

export type CallStatus = 'success' | 'error' | 'running' | 'descendant_error';

export interface Feedback {
  id: string;
  feedback_type: string;
  weave_ref: string;
  payload: Record<string, unknown>;
  creator: string | null;
  created_at: string;
  wb_user_id: string | null;
}

export interface CallSummary {
  usage?: Record<string, Record<string, number | null | undefined>>;
  weave?: {
    status?: CallStatus;
    latency_ms?: number;
    trace_name?: string;
    display_name?: string;
    costs?: Record<string, Record<string, unknown>>;
    feedback?: Feedback[];
  };
  [key: string]: unknown;
}

export function callStatus(call: Call): CallStatus {
  const s = call.summary?.weave?.status;
  if (s) return s;
  if (call.exception != null) return 'error';
  if (call.ended_at == null) return 'running';
  return 'success';
}

export function latencyMs(call: Call): number | null {
  const l = call.summary?.weave?.latency_ms;
  if (typeof l === 'number') return l;
  if (!call.ended_at) return null;
  return Date.parse(call.ended_at) - Date.parse(call.started_at);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export interface TokenTotals {
  prompt: number;
  completion: number;
  total: number;
  requests: number;
}

/** Token totals over every model in `summary.usage`; null when the call reported no usage. */
export function tokenUsage(call: Call): TokenTotals | null {
  const usage = call.summary?.usage;
  if (!usage || typeof usage !== 'object') return null;
  const t: TokenTotals = { prompt: 0, completion: 0, total: 0, requests: 0 };
  let any = false;
  for (const u of Object.values(usage)) {
    if (!u || typeof u !== 'object') continue;
    any = true;
    const prompt = num(u.prompt_tokens) + num(u.input_tokens);
    const completion = num(u.completion_tokens) + num(u.output_tokens);
    t.prompt += prompt;
    t.completion += completion;
    t.total += num(u.total_tokens) || prompt + completion;
    t.requests += num(u.requests);
  }
  return any ? t : null;
}

/** Total cost in USD from `summary.weave.costs` (requested with `include_costs`); null when unpriced. */
export function totalCost(call: Call): number | null {
  const costs = call.summary?.weave?.costs;
  if (!costs || typeof costs !== 'object') return null;
  let sum = 0;
  let any = false;
  for (const c of Object.values(costs)) {
    if (!c || typeof c !== 'object') continue;
    any = true;
    sum +=
      num(c.prompt_tokens_total_cost) +
      num(c.completion_tokens_total_cost) +
      num(c.cache_read_input_tokens_total_cost) +
      num(c.cache_creation_input_tokens_total_cost);
  }
  return any ? sum : null;
}

export interface FeedbackSummary {
  reactions: { emoji: string; count: number }[];
  notes: number;
  other: number;
}

export function summariseFeedback(items: readonly Feedback[] | undefined): FeedbackSummary {
  const counts = new Map<string, number>();
  let notes = 0;
  let other = 0;
  for (const f of items ?? []) {
    if (f.feedback_type === 'wandb.reaction.1' && typeof f.payload?.emoji === 'string') {
      const e = (typeof f.payload.detoned === 'string' ? f.payload.detoned : f.payload.emoji) as string;
      counts.set(e, (counts.get(e) ?? 0) + 1);
    } else if (f.feedback_type === 'wandb.note.1') notes++;
    else other++;
  }
  return { reactions: [...counts].map(([emoji, count]) => ({ emoji, count })), notes, other };
}

export function callRef(projectId: string, callId: string): string {
  return `weave:///${projectId}/call/${callId}`;
}

export interface ParsedException {
  type: string | null;
  message: string;
  traceback: string | null;
}

/** One frame of the traceback list the Python client writes (`weave.trace.serialization…`). */
interface TracebackFrame {
  filename?: unknown;
  line_number?: unknown;
  function_name?: unknown;
  text?: unknown;
}

/**
 * A traceback as text: a string as it is; the Python client's list of frames (`filename`,
 * `line_number`, `function_name`, `text`) as Python prints it, most recent call last.
 */
function tracebackText(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return JSON.stringify(value);
  const lines = ['Traceback (most recent call last):'];
  for (const frame of value as TracebackFrame[]) {
    if (typeof frame !== 'object' || frame === null) {
      lines.push(`  ${String(frame)}`);
      continue;
    }
    lines.push(
      `  File "${String(frame.filename ?? '?')}", line ${String(frame.line_number ?? '?')}, in ${String(frame.function_name ?? '?')}`,
    );
    if (typeof frame.text === 'string' && frame.text !== '') lines.push(`    ${frame.text}`);
  }
  return lines.join('\n');
}

/**
 * A call's exception as its parts, completed from the span's `exception` event when the call came
 * over OTLP: the call holds the status message only (docs/spec/otel-service-queues.md), the event
 * (`attributes.otel_span.events`, as an SDK's recordException writes it) the type and stack trace.
 */
export function callException(call: { exception?: string | null; attributes?: unknown }): ParsedException | null {
  if (call.exception == null) return null;
  const parsed = parseException(call.exception);
  const event = otelExceptionEvent(call.attributes);
  if (event === null) return parsed;
  const text = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);
  return {
    type: parsed.type ?? text(event.type),
    message: parsed.message !== '' ? parsed.message : (text(event.message) ?? ''),
    traceback: parsed.traceback ?? text(event.stacktrace),
  };
}

/** The attributes of the last `exception` event of an OTLP span, or null. */
function otelExceptionEvent(attributes: unknown): Record<string, unknown> | null {
  const span = isRecord(attributes) ? attributes.otel_span : undefined;
  const events = isRecord(span) && Array.isArray(span.events) ? (span.events as unknown[]) : [];
  for (const event of [...events].reverse()) {
    if (!isRecord(event) || event.name !== 'exception' || !isRecord(event.attributes)) continue;
    const exception = event.attributes.exception;
    if (isRecord(exception)) return exception;
  }
  return null;
}

/**
 * An exception text as its parts: JSON `{"type", "message", "traceback"}` (as some clients and
 * exporters write it), else `Type: message` on the first line with any further lines as the
 * traceback, else the whole text as the message.
 */
export function parseException(text: string): ParsedException {
  try {
    const v: unknown = JSON.parse(text);
    if (isRecord(v)) {
      const o = v;
      const str = (x: unknown) => (typeof x === 'string' ? x : x == null ? null : JSON.stringify(x));
      const message = str(o.message) ?? str(o.msg);
      if (message !== null || o.type != null)
        return {
          type: str(o.type) ?? str(o.exc_type),
          message: message ?? '',
          traceback: tracebackText(o.traceback) ?? str(o.stacktrace) ?? str(o.stack),
        };
    }
  } catch {
    /* not JSON: read it as text */
  }
  const [first = '', ...rest] = text.split('\n');
  const m = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)): (.*)$/.exec(first);
  return m
    ? { type: m[1]!, message: m[2]!, traceback: rest.length > 0 ? rest.join('\n') : null }
    : { type: null, message: text, traceback: null };
}
