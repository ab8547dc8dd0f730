import type { ApiPost } from './openapi.gen.js';
import { readJsonl } from './stream/jsonl.js';

/**
 * The one fetch wrapper. Authentication is the same-origin HttpOnly session cookie set by
 * `POST /auth/session`; every non-GET request carries the CSRF header the server requires.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

let unauthorizedListener: (() => void) | null = null;
/** Called whenever a request answers 401 (the session expired or was revoked). */
export function onUnauthorized(fn: () => void): void {
  unauthorizedListener = fn;
}

function errorMessage(status: number, body: unknown, text: string): string {
  if (body && typeof body === 'object') {
    const b = body as { reason?: unknown; detail?: unknown; message?: unknown };
    if (typeof b.reason === 'string') return b.reason;
    if (typeof b.message === 'string') return b.message;
    if (typeof b.detail === 'string') return b.detail;
    if (Array.isArray(b.detail))
      return b.detail
        .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg ?? ''}`)
        .join('; ');
  }
  return text.slice(0, 300) || `HTTP ${status}`;
}

export async function request(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal; accept?: string } = {},
): Promise<Response> {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { Accept: init.accept ?? 'application/json' };
  if (method !== 'GET') headers['X-Heddle-CSRF'] = '1';
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
    credentials: 'same-origin',
  });
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (res.status === 401 && !path.startsWith('/auth/')) unauthorizedListener?.();
    throw new ApiError(res.status, errorMessage(res.status, body, text), body);
  }
  return res;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await request(path, { signal })).json() as Promise<T>;
}

/**
 * POSTs a JSON body and reads the JSON answer. Typed by the server's own schemas (openapi.gen.ts,
 * generated from /openapi.json): the body must be one the route accepts; `T` is what the caller reads.
 */
export const postJson: ApiPost<'json'> = async <T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> => {
  const res = await request(path, { body, signal });
  if (res.status === 204) return undefined as T;
  return res.json() as Promise<T>;
};

/** POSTs and reads a JSON Lines response into an array (typed like `postJson`). */
export const postJsonl: ApiPost<'rows'> = async <T>(
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<T[]> => {
  const res = await request(path, { body, signal, accept: 'application/jsonl' });
  const out: T[] = [];
  if (!res.body) return out;
  for await (const row of readJsonl<T>(res.body)) out.push(row);
  return out;
};
