import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors/app-error.js';
import { SESSION_COOKIE } from '../services/session-service.js';

/** The header a cookie-authenticated unsafe request must carry (a cross-site form or image cannot set it). */
export const CSRF_HEADER = 'x-heddle-csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token from the `Cookie` header, or null. */
export function readSessionCookie(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

/** Whether the request reached us over https (directly or through a proxy that says so). */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https' || firstValue(request.headers['x-forwarded-proto']) === 'https';
}

/** Sets the session cookie: HttpOnly, SameSite=Strict, Path=/, Secure over https. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAge: number): void {
  const secure = isHttps(request) ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${token}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Strict${secure}`,
  );
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const secure = isHttps(request) ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Strict${secure}`,
  );
}

/** The first value of a header that a proxy may have sent several times or as a list. */
function firstValue(header: string | string[] | undefined): string {
  const [first = ''] = ((Array.isArray(header) ? header[0] : header) ?? '').split(',');
  return first.trim().toLowerCase();
}

/**
 * 403 unless an `Origin` header, when present, names this server: its host and port equal the
 * `Host` header, or `X-Forwarded-Host` behind a proxy that rewrites Host (a cross-site page cannot
 * set that header without a CORS preflight, which this server never grants).
 */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    host = '';
  }
  const own = [firstValue(request.headers.host), firstValue(request.headers['x-forwarded-host'])];
  if (host === '' || !own.includes(host)) {
    throw new ForbiddenError(`Cross-origin request refused: Origin ${origin} does not match this server`);
  }
}

/**
 * CSRF defence for cookie-authenticated requests: a method other than GET/HEAD/OPTIONS needs
 * `X-Heddle-CSRF: 1` and a same-origin `Origin` when one is sent. SameSite=Strict already keeps the
 * cookie off cross-site requests; this also covers same-site neighbours and old browsers.
 */
export function checkCsrf(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  if (request.headers[CSRF_HEADER] !== '1') {
    throw new ForbiddenError(
      'Cookie-authenticated requests other than GET/HEAD/OPTIONS need the header "X-Heddle-CSRF: 1"',
    );
  }
  checkOrigin(request);
}
