import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AuthError } from '../errors/app-error.js';
import type { AuthService, Caller } from '../services/auth-service.js';
import type { SessionService } from '../services/session-service.js';
import { checkRouteAccess } from './route-access.js';
import { checkCsrf, readSessionCookie } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every route that is not public. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** No credentials needed (health routes). */
    public?: boolean;
    /** Also accept the key in a `wandb-api-key` header (OTel ingest). */
    apiKeyHeader?: boolean;
  }
}

/** The API key of a request: HTTP Basic `api:<key>` (any user name) or `Bearer <key>`. */
export function extractApiKey(request: FastifyRequest, allowApiKeyHeader = false): string | null {
  const header = request.headers.authorization;
  if (header) {
    const [scheme = '', value = ''] = header.split(/\s+/, 2);
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const key = colon >= 0 ? decoded.slice(colon + 1) : decoded;
      return key === '' ? null : key;
    }
    if (/^bearer$/i.test(scheme)) return value === '' ? null : value;
  }
  const headerKey = request.headers['wandb-api-key'];
  if (allowApiKeyHeader && typeof headerKey === 'string' && headerKey !== '') return headerKey;
  return null;
}

/**
 * Authenticates every request except routes marked `config.public`; 401 on missing or bad keys.
 * Without credentials in headers, the web UI's session cookie is accepted (with its CSRF checks).
 * Then the route's `config.access` (route-access.ts) is held against the caller's roles: 403 for
 * a viewer on a write route, or a non-admin on an admin route.
 */
export function registerAuth(app: FastifyInstance, auth: AuthService, sessions?: SessionService): void {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config?.public || request.routeOptions.url === undefined) return;
    const key = extractApiKey(request, config?.apiKeyHeader === true);
    const token = key === null && sessions ? readSessionCookie(request) : null;
    const route = `${request.method} ${request.routeOptions.url}`;
    if (token !== null && sessions) {
      request.caller = await sessions.resolve(token);
      checkCsrf(request);
      checkRouteAccess(request.caller, config?.access ?? 'write', route);
      return;
    }
    if (key === null) {
      // The training routes word it as their clients expect (docs/spec/training.md §1).
      throw new AuthError(
        request.url.startsWith('/v1/')
          ? 'Not authenticated'
          : 'Missing API key: use HTTP Basic "api:<key>" or "Authorization: Bearer <key>"',
      );
    }
    request.caller = await auth.authenticate(key);
    checkRouteAccess(request.caller, config?.access ?? 'write', route);
  });
}
