import protobuf from 'protobufjs';
import {
  doubleJson,
  intJson,
  OtlpDecodeError,
  type OtelJson,
  type OtlpKeyValue,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './otlp-model.js';

/**
 * The OTLP trace request schema (opentelemetry-proto, `collector/trace/v1`, `trace/v1`,
 * `common/v1`, `resource/v1`): message and field numbers of the published protocol, only the
 * messages a trace export uses. protobufjs does the wire decoding (docs/spec/otel-service-queues.md §A.1).
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package heddle.otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
`;

const REQUEST = protobuf
  .parse(OTLP_TRACE_PROTO, { keepCase: false })
  .root.lookupType('heddle.otlp.ExportTraceServiceRequest');

/** int64/fixed64 as decimal strings (exact), bytes as Buffers, enums as numbers, defaults filled. */
const TO_OBJECT = { longs: String, enums: Number, bytes: Buffer, defaults: true, arrays: true, oneofs: true } as const;

type Decoded = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function hex(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : Buffer.from(bytes).toString('hex');
}

function anyValue(value: Decoded | null | undefined): OtelJson {
  switch (value?.value) {
    case 'stringValue':
      return value.stringValue as string;
    case 'boolValue':
      return value.boolValue as boolean;
    case 'intValue':
      return intJson(BigInt(value.intValue as string));
    case 'doubleValue':
      return doubleJson(value.doubleValue as number);
    case 'arrayValue':
      return ((value.arrayValue?.values ?? []) as Decoded[]).map(anyValue);
    case 'kvlistValue': {
      const out: { [key: string]: OtelJson } = {};
      for (const kv of keyValues(value.kvlistValue?.values))
        Object.defineProperty(out, kv.key, { value: kv.value, enumerable: true, writable: true, configurable: true });
      return out;
    }
    case 'bytesValue':
      return Buffer.from(value.bytesValue as Uint8Array).toString('base64');
    default:
      // §A.3 our choice: an empty AnyValue becomes null
      return null;
  }
}

function keyValues(list: Decoded[] | undefined): OtlpKeyValue[] {
  return (list ?? []).map((kv) => ({ key: kv.key as string, value: anyValue(kv.value) }));
}

function span(s: Decoded): OtlpSpan {
  return {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    parentSpanId: hex(s.parentSpanId),
    traceState: s.traceState,
    flags: s.flags,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: BigInt(s.startTimeUnixNano),
    endTimeUnixNano: BigInt(s.endTimeUnixNano),
    attributes: keyValues(s.attributes),
    events: (s.events as Decoded[]).map((e) => ({
      name: e.name,
      timeUnixNano: BigInt(e.timeUnixNano),
      attributes: keyValues(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    links: (s.links as Decoded[]).map((l) => ({
      traceId: hex(l.traceId),
      spanId: hex(l.spanId),
      traceState: l.traceState,
      attributes: keyValues(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount,
      flags: l.flags,
    })),
    statusCode: s.status?.code ?? 0,
    statusMessage: s.status?.message ?? '',
  };
}

/** Decodes a binary OTLP/protobuf export request; OtlpDecodeError when the bytes are not one. */
export function decodeOtlpProtobuf(body: Uint8Array): OtlpTraceRequest {
  let decoded: Decoded;
  try {
    decoded = REQUEST.toObject(REQUEST.decode(body), TO_OBJECT);
  } catch (error) {
    throw new OtlpDecodeError(`Invalid OTLP protobuf body: ${(error as Error).message}`);
  }
  return {
    resourceSpans: (decoded.resourceSpans as Decoded[]).map((rs) => ({
      resourceAttributes: keyValues(rs.resource?.attributes),
      resourceDroppedAttributesCount: rs.resource?.droppedAttributesCount ?? 0,
      scopeSpans: (rs.scopeSpans as Decoded[]).map((ss) => ({
        scopeName: ss.scope?.name ?? '',
        scopeVersion: ss.scope?.version ?? '',
        spans: (ss.spans as Decoded[]).map(span),
      })),
    })),
  };
}

/** Encodes a request given in protobufjs object form (tests build protobuf bodies with it). */
export function encodeOtlpProtobuf(request: Record<string, unknown>): Uint8Array {
  return REQUEST.encode(REQUEST.fromObject(request)).finish();
}
