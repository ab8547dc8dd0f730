import { createHash } from 'node:crypto';
import { formatMicros, parseIsoMicros, unixSecondsToMicros } from '../../domain/time.js';
import { attributeTree, isObject, isTruthy, lookup, PathConflictError, setOwn } from './attribute-tree.js';
import type { SpanEvent } from './chat-messages.js';
import { extractSemantics, firstTruthy, type SpanTrees, type Usage } from './extract.js';
import { SPAN_KIND_NAMES, STATUS_CODE_NAMES, type OtelJson, type OtelJsonObject, type OtlpSpan } from './otlp-model.js';

/** The span → call mapping of docs/spec/otel-service-queues.md §A.4 (no IO: the op ref is resolved by the service). */

/** One span made into call fields, JSON fields as values. */
export interface OtelCall {
  id: string;
  trace_id: string;
  parent_id: string | null;
  /** The (shortened) span name the op is resolved from (§A.6). */
  span_name: string;
  display_name: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: number;
  ended_at: number;
  inputs: OtelJsonObject;
  output: OtelJson;
  exception: string | null;
  attributes: OtelJsonObject;
  summary: OtelJsonObject;
  otel_dump: OtelJsonObject;
  wb_run_id: string | null;
  wb_run_step: number | null;
  wb_run_step_end: number | null;
}

/** A resource group's context: its project, its resource attributes tree, its run id (§A.2). */
export interface SpanGroupContext {
  projectId: string;
  resourceTree: OtelJsonObject;
  resourceDroppedAttributesCount: number;
  wbRunId: string | null;
}

export type SpanOutcome = { ok: true; call: OtelCall } | { ok: false; reason: string };

/**
 * §A.4 thread id, plus (our choice) OpenInference's `session.id` (Phoenix sessions) and the GenAI
 * conventions' `gen_ai.conversation.id`. A session span is a turn when it is a trace root: the
 * instrumentations copy the session id onto every span of the trace, and a thread's turns are its roots.
 */
const SESSION_KEYS = ['session.id', 'gen_ai.conversation.id'];
const THREAD_KEYS = ['gcp.vertex.agent.session_id', 'wandb.thread_id', ...SESSION_KEYS];

const NAME_DELIMITERS = /[,;| /?.]/g;
const MAX_OP_NAME = 128;
const MAX_DISPLAY_NAME = 1024;

/** Cuts `text` to at most `limit` chars, at the last delimiter inside the limit when there is one. */
function cut(text: string, limit: number): string {
  const head = text.slice(0, limit);
  let at = -1;
  for (const match of head.matchAll(NAME_DELIMITERS)) at = match.index;
  return at > 0 ? head.slice(0, at) : head;
}

/** §A.4: names of 128+ chars become ≤128 chars ending in `:` + 4 hex chars of SHA-256(name). */
export function shortenOpName(name: string): string {
  if (name.length < MAX_OP_NAME) return name;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 4);
  return `${cut(name, MAX_OP_NAME - 5)}:${hash}`;
}

/** §A.4: display names of 1024+ chars are shortened the same way, ending in `...`. */
export function shortenDisplayName(name: string): string {
  return name.length < MAX_DISPLAY_NAME ? name : `${cut(name, MAX_DISPLAY_NAME - 3)}...`;
}

/** §A.6: the op object id of a (shortened) span name. */
export function opObjectId(spanName: string): string {
  const id = spanName.toLowerCase().replace(/[^A-Za-z0-9._-]/g, '_');
  // our choice: an unnamed span still needs a valid object id
  return id === '' ? 'otel_span' : id;
}

function nanosToMicros(nanos: bigint): number {
  return Number(nanos / 1000n);
}

/** §A.4 `langfuse.*Time`: ISO string, int = unix ns, float = unix s; null when unusable. */
function langfuseTime(value: OtelJson | undefined): number | null {
  if (typeof value === 'string') return parseIsoMicros(value);
  if (typeof value === 'bigint') return nanosToMicros(value);
  if (typeof value === 'number' && Number.isFinite(value))
    return Number.isInteger(value) ? nanosToMicros(BigInt(value)) : unixSecondsToMicros(value);
  return null;
}

function intOrNull(value: OtelJson | undefined): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return null;
}

function textOrNull(value: OtelJson | undefined): string | null {
  if (!isTruthy(value)) return null;
  return typeof value === 'string' ? value : String(value);
}

/**
 * §A.7: `{"usage": {<model or "usage">: {six keys}}}`. Our choice: a span without any token count
 * gets an empty summary, not a usage entry of nulls (which the UI would show as a model with no tokens).
 */
function summaryOf(usage: Usage, attributes: OtelJsonObject): OtelJsonObject {
  if (Object.values(usage).every((v) => v === null)) return {};
  const params = attributes.model_parameters;
  const model = isTruthy(attributes.model)
    ? attributes.model
    : isObject(params) && isTruthy(params.model)
      ? params.model
      : 'usage';
  const key = typeof model === 'string' ? model : String(model);
  return { usage: { [key]: { ...usage } } };
}

/** The events tree of §A.5: each event name dot-split, the leaf a list of attribute trees. */
function eventsTree(events: SpanEvent[]): OtelJsonObject {
  const root: OtelJsonObject = {};
  for (const event of events) {
    const segments = event.name.split('.');
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      if (!Object.hasOwn(node, segment) || !isObject(node[segment])) setOwn(node, segment, {});
      node = node[segment] as OtelJsonObject;
    }
    const leaf = segments[segments.length - 1]!;
    const list = Object.hasOwn(node, leaf) && Array.isArray(node[leaf]) ? (node[leaf] as OtelJson[]) : [];
    list.push(event.attributes);
    setOwn(node, leaf, list);
  }
  return root;
}

export function otelDump(
  span: OtlpSpan,
  ctx: SpanGroupContext,
  attributes: OtelJsonObject,
  startedAt: number,
  endedAt: number,
): OtelJsonObject {
  return {
    name: span.name,
    context: { trace_id: span.traceId, span_id: span.spanId, trace_state: span.traceState },
    kind: SPAN_KIND_NAMES[span.kind] ?? 'UNSPECIFIED',
    parent_id: span.parentSpanId === '' ? null : span.parentSpanId,
    start_time: formatMicros(startedAt),
    end_time: formatMicros(endedAt),
    status: { code: STATUS_CODE_NAMES[span.statusCode] ?? 'UNSET', message: span.statusMessage },
    attributes,
    events: span.events.map((e) => ({
      name: e.name,
      timestamp: formatMicros(nanosToMicros(e.timeUnixNano)),
      attributes: attributeTree(e.attributes),
      dropped_attributes_count: e.droppedAttributesCount,
    })),
    links: span.links.map((l) => ({
      trace_id: l.traceId,
      span_id: l.spanId,
      trace_state: l.traceState,
      attributes: attributeTree(l.attributes),
      dropped_attributes_count: l.droppedAttributesCount,
      flags: l.flags,
    })),
    resource: { attributes: ctx.resourceTree, dropped_attributes_count: ctx.resourceDroppedAttributesCount },
  };
}

function invalidIds(span: OtlpSpan): string | null {
  const zero = /^0+$/;
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || zero.test(span.traceId))
    return 'invalid or empty trace id (expected 32 hex characters)';
  if (!/^[0-9a-f]{16}$/.test(span.spanId) || zero.test(span.spanId))
    return 'invalid or empty span id (expected 16 hex characters)';
  if (span.parentSpanId !== '' && !/^[0-9a-f]{16}$/.test(span.parentSpanId))
    return 'invalid parent span id (expected 16 hex characters)';
  return null;
}

/** Maps one span (§A.4–A.8); a span that must be rejected (§A.9) gives its reason. */
export function spanToCall(span: OtlpSpan, ctx: SpanGroupContext): SpanOutcome {
  const badIds = invalidIds(span);
  if (badIds !== null) return { ok: false, reason: badIds };
  let trees: SpanTrees;
  let dump: OtelJsonObject;
  const attrs = (key: string): OtelJson | undefined => lookup(trees.attributes, key);
  try {
    const eventList = span.events.map((e) => ({ name: e.name, attributes: attributeTree(e.attributes) }));
    trees = { attributes: attributeTree(span.attributes), events: eventsTree(eventList), eventList };
    dump = otelDump(span, ctx, trees.attributes, 0, 0);
  } catch (error) {
    if (error instanceof PathConflictError) return { ok: false, reason: error.message };
    throw error;
  }
  const startedAt = langfuseTime(attrs('langfuse.startTime')) ?? nanosToMicros(span.startTimeUnixNano);
  const endedAt =
    langfuseTime(attrs('langfuse.endTime')) ??
    (span.endTimeUnixNano === 0n ? startedAt : nanosToMicros(span.endTimeUnixNano));
  dump.start_time = formatMicros(startedAt);
  dump.end_time = formatMicros(endedAt);
  const extracted = extractSemantics(trees);
  const thread = firstTruthy(trees, THREAD_KEYS);
  const threadId = textOrNull(thread?.value);
  const isTurn =
    firstTruthy(trees, ['gcp.vertex.agent.session_id', 'wandb.is_turn']) !== null ||
    (thread !== null && SESSION_KEYS.includes(thread.key) && span.parentSpanId === '');
  const displayName = textOrNull(attrs('wandb.display_name'));
  const runId = attrs('wandb.wb_run_id');
  const ownRunId =
    typeof runId === 'string' && runId !== '' && !/[/:]/.test(runId) ? `${ctx.projectId}:${runId}` : null;
  return {
    ok: true,
    call: {
      id: span.spanId,
      trace_id: span.traceId,
      parent_id: span.parentSpanId === '' ? null : span.parentSpanId,
      span_name: shortenOpName(span.name),
      display_name: displayName === null ? null : shortenDisplayName(displayName),
      thread_id: threadId,
      turn_id: threadId !== null && isTurn ? span.spanId : null,
      started_at: startedAt,
      ended_at: endedAt,
      inputs: extracted.inputs,
      output: extracted.output,
      exception: span.statusCode === 2 ? span.statusMessage : null,
      attributes: extracted.attributes,
      summary: summaryOf(extracted.usage, extracted.recognised),
      otel_dump: dump,
      wb_run_id: ctx.wbRunId ?? ownRunId,
      wb_run_step: intOrNull(attrs('wandb.wb_run_step')),
      wb_run_step_end: intOrNull(attrs('wandb.wb_run_step_end')),
    },
  };
}
