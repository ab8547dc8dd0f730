import { isLosslessNumber, LosslessNumber, parse } from 'lossless-json';
import {
  doubleJson,
  intJson,
  nativeJsonIsExact,
  OtlpDecodeError,
  SPAN_KIND_NAMES,
  STATUS_CODE_NAMES,
  type OtelJson,
  type OtlpEvent,
  type OtlpKeyValue,
  type OtlpLink,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './otlp-model.js';

/**
 * OTLP/JSON (docs/spec/otel-service-queues.md §A.1): the proto3 JSON mapping with OTLP's exceptions — ids are hex, int64
 * fields may be strings or numbers (parsed exactly: the text is read with lossless-json),
 * enums are numbers or names. lowerCamelCase and the original snake_case names are accepted.
 */

type Obj = Record<string, unknown>;

function fail(what: string): never {
  throw new OtlpDecodeError(`Invalid OTLP JSON body: ${what}`);
}

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A field by its JSON name or its proto name; undefined for absent or null. */
function field(obj: Obj, camel: string): unknown {
  const value = Object.hasOwn(obj, camel) ? obj[camel] : obj[snake(camel)];
  return value === null ? undefined : value;
}

function object(value: unknown, what: string): Obj {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isLosslessNumber(value))
    fail(`${what} must be an object`);
  return value as Obj;
}

function list(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${what} must be an array`);
  return value;
}

function str(value: unknown, what: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') fail(`${what} must be a string`);
  return value;
}

/** An integer field given as a JSON number or a decimal string, exactly. */
function int64(value: unknown, what: string): bigint {
  if (value === undefined) return 0n;
  if (typeof value === 'number')
    return Number.isInteger(value) ? BigInt(value) : fail(`${what} must be an integer, got ${value}`);
  const text = isLosslessNumber(value)
    ? value.value
    : typeof value === 'string'
      ? value.trim()
      : fail(`${what} must be an integer`);
  if (!/^-?\d+$/.test(text)) fail(`${what} must be an integer, got ${JSON.stringify(text)}`);
  return BigInt(text);
}

function small(value: unknown, what: string): number {
  return Number(int64(value, what));
}

function enumValue(value: unknown, names: readonly string[], prefix: string, what: string): number {
  if (typeof value === 'string' && !/^\d+$/.test(value)) {
    const index = names.indexOf(value.startsWith(prefix) ? value.slice(prefix.length) : value);
    return index >= 0 ? index : fail(`unknown ${what} ${JSON.stringify(value)}`);
  }
  return small(value, what);
}

function double(value: unknown): number {
  if (typeof value === 'number') return value;
  if (isLosslessNumber(value)) return Number(value.value);
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return fail('doubleValue must be a number');
}

function anyValue(raw: unknown): OtelJson {
  const value = object(raw, 'value');
  if (field(value, 'stringValue') !== undefined) return str(field(value, 'stringValue'), 'stringValue');
  const bool = field(value, 'boolValue');
  if (bool !== undefined) return typeof bool === 'boolean' ? bool : fail('boolValue must be a boolean');
  if (field(value, 'intValue') !== undefined) return intJson(int64(field(value, 'intValue'), 'intValue'));
  if (field(value, 'doubleValue') !== undefined) return doubleJson(double(field(value, 'doubleValue')));
  if (field(value, 'arrayValue') !== undefined)
    return list(field(object(field(value, 'arrayValue'), 'arrayValue'), 'values'), 'arrayValue.values').map(anyValue);
  if (field(value, 'kvlistValue') !== undefined) {
    const out: { [key: string]: OtelJson } = {};
    for (const kv of keyValues(field(object(field(value, 'kvlistValue'), 'kvlistValue'), 'values'))) {
      Object.defineProperty(out, kv.key, { value: kv.value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (field(value, 'bytesValue') !== undefined)
    return Buffer.from(str(field(value, 'bytesValue'), 'bytesValue'), 'base64').toString('base64');
  return null;
}

function keyValues(raw: unknown): OtlpKeyValue[] {
  return list(raw, 'attributes').map((item) => {
    const kv = object(item, 'attribute');
    return { key: str(field(kv, 'key'), 'key'), value: anyValue(field(kv, 'value')) };
  });
}

/** Hex ids are case-insensitive; their validity is checked per span by the mapping. */
function hexId(value: unknown, what: string): string {
  return str(value, what).toLowerCase();
}

function event(raw: unknown): OtlpEvent {
  const e = object(raw, 'event');
  return {
    name: str(field(e, 'name'), 'event name'),
    timeUnixNano: int64(field(e, 'timeUnixNano'), 'timeUnixNano'),
    attributes: keyValues(field(e, 'attributes')),
    droppedAttributesCount: small(field(e, 'droppedAttributesCount'), 'droppedAttributesCount'),
  };
}

function link(raw: unknown): OtlpLink {
  const l = object(raw, 'link');
  return {
    traceId: hexId(field(l, 'traceId'), 'traceId'),
    spanId: hexId(field(l, 'spanId'), 'spanId'),
    traceState: str(field(l, 'traceState'), 'traceState'),
    attributes: keyValues(field(l, 'attributes')),
    droppedAttributesCount: small(field(l, 'droppedAttributesCount'), 'droppedAttributesCount'),
    flags: small(field(l, 'flags'), 'flags'),
  };
}

function span(raw: unknown): OtlpSpan {
  const s = object(raw, 'span');
  const status = object(field(s, 'status'), 'status');
  return {
    traceId: hexId(field(s, 'traceId'), 'traceId'),
    spanId: hexId(field(s, 'spanId'), 'spanId'),
    parentSpanId: hexId(field(s, 'parentSpanId'), 'parentSpanId'),
    traceState: str(field(s, 'traceState'), 'traceState'),
    flags: small(field(s, 'flags'), 'flags'),
    name: str(field(s, 'name'), 'name'),
    kind: field(s, 'kind') === undefined ? 0 : enumValue(field(s, 'kind'), SPAN_KIND_NAMES, 'SPAN_KIND_', 'kind'),
    startTimeUnixNano: int64(field(s, 'startTimeUnixNano'), 'startTimeUnixNano'),
    endTimeUnixNano: int64(field(s, 'endTimeUnixNano'), 'endTimeUnixNano'),
    attributes: keyValues(field(s, 'attributes')),
    events: list(field(s, 'events'), 'events').map(event),
    links: list(field(s, 'links'), 'links').map(link),
    statusCode:
      field(status, 'code') === undefined
        ? 0
        : enumValue(field(status, 'code'), STATUS_CODE_NAMES, 'STATUS_CODE_', 'status code'),
    statusMessage: str(field(status, 'message'), 'status message'),
  };
}

/** Decodes an OTLP/JSON export request; OtlpDecodeError for invalid JSON or a wrong shape. */
export function decodeOtlpJson(text: string): OtlpTraceRequest {
  let parsed: unknown;
  try {
    // the native parser is several times faster; it is used when it cannot round an integer
    parsed = nativeJsonIsExact(text)
      ? JSON.parse(text)
      : parse(text, null, {
          parseNumber: (literal: string) => new LosslessNumber(literal),
          onDuplicateKey: ({ newValue }) => newValue,
        });
  } catch (error) {
    fail((error as Error).message);
  }
  const root = object(parsed ?? fail('empty body'), 'request');
  return {
    resourceSpans: list(field(root, 'resourceSpans'), 'resourceSpans').map((item) => {
      const rs = object(item, 'resourceSpans item');
      const resource = object(field(rs, 'resource'), 'resource');
      return {
        resourceAttributes: keyValues(field(resource, 'attributes')),
        resourceDroppedAttributesCount: small(field(resource, 'droppedAttributesCount'), 'droppedAttributesCount'),
        scopeSpans: list(field(rs, 'scopeSpans'), 'scopeSpans').map((sitem) => {
          const ss = object(sitem, 'scopeSpans item');
          const scope = object(field(ss, 'scope'), 'scope');
          return {
            scopeName: str(field(scope, 'name'), 'scope name'),
            scopeVersion: str(field(scope, 'version'), 'scope version'),
            spans: list(field(ss, 'spans'), 'spans').map(span),
          };
        }),
      };
    }),
  };
}
