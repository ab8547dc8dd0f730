import type { LightMyRequestResponse } from 'fastify';
import type { RouteInfo } from '../../src/plugins/route-table.js';
import type { TestApp } from '../helpers/app.js';
import type { CaseRequest } from './route-cases.js';

/** Sends `request` with the route's method and the given headers (JSON body when there is one). */
export function send(
  h: Pick<TestApp, 'app'>,
  route: Pick<RouteInfo, 'method'>,
  request: CaseRequest,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  if (request.eventStream) return sendEventStream(h, route, request, headers);
  if (request.raw) {
    return h.app.inject({
      method: route.method as 'POST',
      url: request.url,
      headers: { ...headers, 'content-type': request.raw.contentType },
      payload: request.raw.payload,
    });
  }
  const hasBody = request.body !== undefined;
  return h.app.inject({
    method: route.method as 'GET',
    url: request.url,
    headers: hasBody ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: hasBody ? JSON.stringify(request.body) : undefined,
  });
}

/**
 * An event-stream request: an error answer is read whole; a stream (200) only up to its first
 * chunk, then dropped (the app's close ends it), so the test does not wait for an endless body.
 */
async function sendEventStream(
  h: Pick<TestApp, 'app'>,
  route: Pick<RouteInfo, 'method'>,
  request: CaseRequest,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const res = await h.app.inject({ method: route.method as 'GET', url: request.url, headers, payloadAsStream: true });
  const chunks: Buffer[] = [];
  for await (const chunk of res.stream()) {
    chunks.push(Buffer.from(chunk as Uint8Array));
    if (res.statusCode === 200) break;
  }
  const body = Buffer.concat(chunks).toString('utf8');
  const answer = {
    statusCode: res.statusCode,
    headers: res.headers,
    body,
    payload: body,
    json: () => JSON.parse(body),
  };
  return answer as unknown as LightMyRequestResponse;
}

/** The JSON body of an error answer, or a description of why it is not one. */
export function errorMessage(res: LightMyRequestResponse): string | undefined {
  let body: unknown;
  try {
    body = res.json();
  } catch {
    return undefined;
  }
  const b = body as { reason?: unknown; detail?: unknown };
  if (typeof b.reason === 'string') return b.reason;
  if (typeof b.detail === 'string') return b.detail;
  if (Array.isArray(b.detail) && b.detail.length > 0) return JSON.stringify(b.detail);
  return undefined;
}

/** `"METHOD url → status body"` for assertion messages. */
export function describeResponse(method: string, url: string, res: LightMyRequestResponse): string {
  return `${method} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
}
