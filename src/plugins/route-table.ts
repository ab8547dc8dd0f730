import type { FastifyInstance, RouteOptions } from 'fastify';
import { declaredAccess, type RouteAccess, type RouteAccessTable } from './route-access.js';

/** One registered route, as the error handler (405) and the security tests see it. */
export interface RouteInfo {
  method: string;
  /** The URL pattern with its prefix, e.g. `/objs/:object_id/aliases`. */
  url: string;
  /** `config.public`: reachable without credentials. */
  public: boolean;
  /** What the route needs of the caller's role (route-access.ts); null when unclassified. */
  access: RouteAccess | null;
  /** `schema.hide`: left out of the OpenAPI document. */
  hidden: boolean;
  /** A HEAD route beside a GET route of the same URL (Fastify adds these by itself). */
  autoHead: boolean;
  /** Tests whether a concrete path (no query string) matches this pattern. */
  matches(path: string): boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered so far (filled by an onRoute hook; complete once the app is ready). */
    routeTable: readonly RouteInfo[];
  }
}

/** Turns a find-my-way pattern (`:param`, `*`) into an anchored regular expression. */
function patternToRegex(url: string): RegExp {
  const parts = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    // A segment may mix literal text and parameters (`:a-:b`); each parameter takes what it can.
    return segment
      .split(/(:[A-Za-z0-9_]+(?:\([^)]*\))?|\*)/)
      .map((piece) =>
        piece.startsWith(':') ? '[^/]+' : piece === '*' ? '.*' : piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
  });
  return new RegExp(`^${parts.join('/')}/?$`);
}

/**
 * Records every route registered after this call (including Fastify's automatic HEAD routes)
 * and exposes them as `app.routeTable`. Must be called before the route plugins are registered.
 */
export function collectRoutes(app: FastifyInstance, access: RouteAccessTable): readonly RouteInfo[] {
  const table: RouteInfo[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const regex = patternToRegex(route.url);
    const schema = route.schema as { hide?: boolean } | undefined;
    for (const method of methods) {
      const declared = declaredAccess(method.toUpperCase(), route.url, route.config, access);
      // the auth plugin reads it from the route's config; an unclassified route counts as a write
      if (route.config?.public !== true) route.config = { ...route.config, access: declared ?? 'write' };
      table.push({
        method: method.toUpperCase(),
        url: route.url,
        public: route.config?.public === true,
        access: declared,
        hidden: schema?.hide === true,
        autoHead: method.toUpperCase() === 'HEAD' && table.some((r) => r.method === 'GET' && r.url === route.url),
        matches: (path) => regex.test(path),
      });
    }
  });
  return table;
}
