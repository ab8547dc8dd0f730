import type { FastifyRequest } from 'fastify';
import { gunzipSync, inflateSync } from 'node:zlib';
import { AppError, InvalidRequestError, RequestTooLargeError } from '../errors/app-error.js';
import * as S from '../schemas/otel.js';
import type { Services } from '../services/index.js';
import type { OtlpBody } from '../services/otel-service.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['OpenTelemetry'];

/** §A.1 our choice: at most 32 MiB of OTLP after decompression (the real client-side limit). */
export const OTEL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

class UnsupportedEncodingError extends AppError {
  constructor(encoding: string) {
    super(415, `Unsupported content encoding: ${encoding} (use gzip, deflate or identity)`);
  }
}

/** The raw body, gunzipped when `Content-Encoding: gzip`, never more than the limit (§A.1). */
function decompress(request: FastifyRequest, raw: Buffer): Buffer {
  const encoding = String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  const deflate = encoding === 'deflate';
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && !deflate) throw new UnsupportedEncodingError(encoding);
  try {
    // docs/spec/agents.md §2.1 our choice: deflate too (served on every OTLP route)
    return deflate
      ? inflateSync(raw, { maxOutputLength: OTEL_BODY_LIMIT_BYTES })
      : gunzipSync(raw, { maxOutputLength: OTEL_BODY_LIMIT_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RequestTooLargeError(
        `Request too large: the decompressed body exceeds the limit of ${OTEL_BODY_LIMIT_BYTES} bytes`,
      );
    }
    throw new InvalidRequestError(`Invalid ${deflate ? 'deflate' : 'gzip'} body: ${(error as Error).message}`);
  }
}

/** This plugin's parsers always hand over an {@link OtlpBody}; a request without a body has none. */
function isOtlpBody(body: unknown): body is OtlpBody {
  return typeof body === 'object' && body !== null && 'encoding' in body && 'bytes' in body;
}

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * OTLP/HTTP trace export (docs/spec/otel-service-queues.md §A). This plugin's own content-type parsers take protobuf and
 * JSON as raw bytes; any other type is a 415. Keys may also come in `wandb-api-key`.
 */
export default async function otelRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  app.removeAllContentTypeParsers();
  const parseAs = { parseAs: 'buffer', bodyLimit: OTEL_BODY_LIMIT_BYTES } as const;
  const keep =
    (encoding: OtlpBody['encoding']) =>
    (request: FastifyRequest, body: Buffer | string, done: (err: Error | null, body?: unknown) => void) => {
      try {
        done(null, { encoding, bytes: decompress(request, body as Buffer) } satisfies OtlpBody);
      } catch (error) {
        done(error as Error);
      }
    };
  app.addContentTypeParser(['application/x-protobuf', 'application/protobuf'], parseAs, keep('protobuf'));
  app.addContentTypeParser('application/json', parseAs, keep('json'));

  const options = {
    bodyLimit: OTEL_BODY_LIMIT_BYTES,
    config: { apiKeyHeader: true },
    schema: { tags, summary: 'Export Trace', body: S.ExportTraceBody, response: { 200: S.ExportTraceRes } },
  };
  const handlerFor = (agents: 'genai' | 'all') => async (request: FastifyRequest) => {
    if (!isOtlpBody(request.body)) throw new InvalidRequestError('Missing OTLP body');
    const headers = { projectId: header(request, 'project_id'), wbRunId: header(request, 'wb_run_id') };
    return services.otel.otelExport(request.caller, request.body, headers, agents);
  };
  const handler = handlerFor('genai');
  app.post('/otel/v1/traces', options, handler);
  // docs/spec/agents.md §2.1: the agents ingest and its alias (every span an agent span, §1 R1/R2)
  const agentOptions = { ...options, schema: { ...options.schema, tags: ['Agents'], summary: 'Export Agent Spans' } };
  app.post('/agents/otel/v1/traces', agentOptions, handlerFor('all'));
  app.post(
    '/otel/v1/genai/traces',
    { ...agentOptions, schema: { ...agentOptions.schema, hide: true } },
    handlerFor('all'),
  );
  // §A: the older path, served as an alias; its legacy clients sent the key by HTTP Basic (§0), so
  // the `wandb-api-key` header belongs to the new path only
  app.post('/otel/v1/trace', { ...options, config: {}, schema: { ...options.schema, hide: true } }, handler);
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const otelArea = routeArea('otel', otelRoutes, {
  'POST /otel/v1/traces': 'write',
  'POST /otel/v1/trace': 'write',
  // the Agents API's ingest and its alias (docs/spec/agents.md §2.1)
  'POST /agents/otel/v1/traces': 'write',
  'POST /otel/v1/genai/traces': 'write',
});
