import type { LightMyRequestResponse } from 'fastify';
import { gzipSync } from 'node:zlib';
import { encodeOtlpProtobuf } from '../../src/ingest/otel/otlp-protobuf.js';
import { parseJsonl, type TestApp } from '../helpers/app.js';

/** Helpers for the OTel ingest tests (docs/spec/otel-service-queues.md §A). */

export type Attr = { key: string; value: Record<string, unknown> };

/** An attribute in OTLP/JSON form from a plain value (ints as `intValue` strings). */
export function attr(key: string, value: unknown): Attr {
  return { key, value: anyValue(value) };
}

function anyValue(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'bigint') return { intValue: value.toString() };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (value !== null && typeof value === 'object')
    return { kvlistValue: { values: Object.entries(value).map(([k, v]) => attr(k, v)) } };
  return {};
}

export const TRACE = '0af7651916cd43dd8448eb211c80319c';
export const T0_NS = 1767225600000000000n; // 2026-01-01T00:00:00Z

export interface SpanInput {
  spanId?: string;
  traceId?: string;
  parentSpanId?: string;
  name?: string;
  attributes?: Attr[];
  status?: Record<string, unknown>;
  startNs?: bigint;
  endNs?: bigint;
  kind?: number | string;
  events?: unknown[];
}

/** A span in OTLP/JSON form. */
export function span(s: SpanInput = {}): Record<string, unknown> {
  return {
    traceId: s.traceId ?? TRACE,
    spanId: s.spanId ?? 'b7ad6b7169203331',
    ...(s.parentSpanId !== undefined ? { parentSpanId: s.parentSpanId } : {}),
    name: s.name ?? 'my span',
    kind: s.kind ?? 1,
    startTimeUnixNano: String(s.startNs ?? T0_NS),
    endTimeUnixNano: String(s.endNs ?? T0_NS + 1_500_000_000n),
    attributes: s.attributes ?? [],
    ...(s.events ? { events: s.events } : {}),
    status: s.status ?? {},
  };
}

/** An export request of one resource group (routed to `project` by resource attributes unless null). */
export function exportReq(
  spans: Array<Record<string, unknown>>,
  project: string | null = 'acme/demo',
  extraResource: Attr[] = [],
): Record<string, unknown> {
  const routing =
    project === null ? [] : [attr('wandb.entity', project.split('/')[0]), attr('wandb.project', project.split('/')[1])];
  return {
    resourceSpans: [
      {
        resource: { attributes: [attr('service.name', 'svc'), ...routing, ...extraResource] },
        scopeSpans: [{ scope: { name: 'test' }, spans }],
      },
    ],
  };
}

/** The same request in protobufjs object form (ids as bytes), encoded. */
export function toProtobuf(req: Record<string, unknown>): Buffer {
  const fixIds = (s: Record<string, unknown>) => ({
    ...s,
    traceId: Buffer.from(String(s.traceId), 'hex'),
    spanId: Buffer.from(String(s.spanId), 'hex'),
    parentSpanId: s.parentSpanId === undefined ? undefined : Buffer.from(String(s.parentSpanId), 'hex'),
  });
  const groups = (req.resourceSpans as Array<Record<string, unknown>>).map((g) => ({
    ...g,
    scopeSpans: (g.scopeSpans as Array<Record<string, unknown>>).map((ss) => ({
      ...ss,
      spans: (ss.spans as Array<Record<string, unknown>>).map(fixIds),
    })),
  }));
  return Buffer.from(encodeOtlpProtobuf({ resourceSpans: groups }));
}

export interface SendOptions {
  contentType?: string;
  gzip?: boolean;
  headers?: Record<string, string>;
  key?: string | null;
  url?: string;
}

/** POSTs an export: `body` as OTLP/JSON (object) or raw bytes. Authenticated as alice unless `key` says otherwise. */
export function sendOtel(
  h: TestApp,
  body: Record<string, unknown> | Buffer | string,
  opts: SendOptions = {},
): Promise<LightMyRequestResponse> {
  let payload: Buffer = Buffer.isBuffer(body)
    ? body
    : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? (Buffer.isBuffer(body) ? 'application/x-protobuf' : 'application/json'),
    ...opts.headers,
  };
  if (opts.gzip) {
    payload = gzipSync(payload);
    headers['content-encoding'] = 'gzip';
  }
  const key = opts.key === undefined ? h.aliceKey : opts.key;
  if (key !== null) headers['wandb-api-key'] = key;
  return h.app.inject({ method: 'POST', url: opts.url ?? '/otel/v1/traces', headers, payload });
}

/** Every call of a project, as stream_query returns them. */
export async function projectCalls(h: TestApp, project = 'acme/demo'): Promise<Array<Record<string, any>>> {
  const res = await h.post('/calls/stream_query', { project_id: project });
  if (res.statusCode !== 200) throw new Error(`stream_query ${res.statusCode}: ${res.body}`);
  return parseJsonl(res.body);
}

/** Exports one span (JSON) to acme/demo and returns its call. */
export async function ingestOne(h: TestApp, s: SpanInput, extraResource: Attr[] = []): Promise<Record<string, any>> {
  const res = await sendOtel(h, exportReq([span(s)], 'acme/demo', extraResource));
  if (res.statusCode !== 200) throw new Error(`export ${res.statusCode}: ${res.body}`);
  const calls = await projectCalls(h);
  const call = calls.find((c) => c.id === (s.spanId ?? 'b7ad6b7169203331'));
  if (!call) throw new Error(`no call: ${res.body}`);
  return call;
}

/** Attributes without the read-side `otel_span`. */
export function ownAttributes(call: Record<string, any>): Record<string, unknown> {
  const { otel_span: _dump, ...rest } = call.attributes as Record<string, unknown>;
  return rest;
}
