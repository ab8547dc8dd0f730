/**
 * The decoded form of an OTLP `ExportTraceServiceRequest`, the same for both encodings (docs/spec/otel-service-queues.md §A.1).
 * Attribute values are already turned into JSON (§A.3 step 1); ids are lowercase hex; int64 fields
 * are exact `bigint`s.
 */

/**
 * A JSON value as ingest builds it. Integers outside the safe range are `bigint` so they stay
 * exact; serialise with `stringifyJson` (otel-json.ts).
 */
export type OtelJson = null | boolean | string | number | bigint | OtelJson[] | { [key: string]: OtelJson };
export type OtelJsonObject = { [key: string]: OtelJson };

export interface OtlpKeyValue {
  key: string;
  value: OtelJson;
}

export interface OtlpEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: OtlpKeyValue[];
  droppedAttributesCount: number;
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: OtlpKeyValue[];
  droppedAttributesCount: number;
  flags: number;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  traceState: string;
  flags: number;
  name: string;
  /** SpanKind number (0 unspecified … 5 consumer). */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: OtlpKeyValue[];
  events: OtlpEvent[];
  links: OtlpLink[];
  /** StatusCode number (0 unset, 1 ok, 2 error). */
  statusCode: number;
  statusMessage: string;
}

export interface OtlpScopeSpans {
  scopeName: string;
  scopeVersion: string;
  spans: OtlpSpan[];
}

export interface OtlpResourceSpans {
  resourceAttributes: OtlpKeyValue[];
  resourceDroppedAttributesCount: number;
  scopeSpans: OtlpScopeSpans[];
}

export interface OtlpTraceRequest {
  resourceSpans: OtlpResourceSpans[];
}

/**
 * A number literal JSON.parse could round: 16+ digits outside a string (a cheap over-approximation;
 * a match inside a string only costs speed).
 */
const LONG_NUMBER_LITERAL = /[:[,]\s*-?\d{16,}/;

/**
 * Whether JSON text can go through the native JSON.parse without losing an integer (every number
 * literal has at most 15 digits, so the double holds it exactly); else a lossless parser is needed.
 */
export function nativeJsonIsExact(text: string): boolean {
  return !LONG_NUMBER_LITERAL.test(text);
}

/** Thrown by the decoders for a body that is not a valid request (→ 400). */
export class OtlpDecodeError extends Error {}

export const SPAN_KIND_NAMES = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
export const STATUS_CODE_NAMES = ['UNSET', 'OK', 'ERROR'] as const;

/** An int64 as JSON: a plain number when exact, else a bigint. */
export function intJson(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** A double as JSON (§A.3 step 1: non-finite values become strings). */
export function doubleJson(value: number): number | string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return value;
}
