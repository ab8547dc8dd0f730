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
