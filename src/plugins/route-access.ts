import { ForbiddenError } from '../errors/app-error.js';
import { viewerMessage } from '../services/project-access.js';
import type { Caller } from '../services/auth-service.js';

/**
 * What each route needs of the caller's role (docs/roles-and-audit.md), decided here for every
 * route:
 *
 * - `read`: any member of the project's entity, viewers included. POST routes that only query
 *   (`/calls/stream_query`, `/objs/query` …) are reads.
 * - `write`: creates, changes or deletes data; a viewer is refused. The auth plugin refuses a
 *   caller who is a viewer in every entity it belongs to before the handler runs; the service then
 *   checks the role in the project's own entity (ProjectAccess.assertCanWrite), since one user can
 *   be a viewer of one entity and a member of another.
 * - `admin`: key and role management, project deletion, the audit log (and retention settings when
 *   they come): an entity admin or an instance admin; services check the entity itself.
 *
 * Each route file lists its routes' access beside them (routes/route-area.ts; the app hands the
 * table of every area to the route table, route-table.ts). A route may also declare `config.access`
 * itself. A route in neither place is treated as `write`
 * (so a forgotten route is closed to viewers), and test/security/roles.test.ts fails until it is
 * classified.
 */
export type RouteAccess = 'read' | 'write' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route needs of the caller's role (plugins/route-access.ts). */
    access?: RouteAccess;
  }
}

/** `"METHOD /url-pattern"` exactly as the route is registered (HEAD routes follow their GET) → its access. */
export type RouteAccessTable = Readonly<Record<string, RouteAccess>>;

/** The declared access of a route (`config.access`, else the table); null when neither says. */
export function declaredAccess(
  method: string,
  url: string,
  config: { access?: RouteAccess } | undefined,
  table: RouteAccessTable,
): RouteAccess | null {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  return config?.access ?? table[key] ?? null;
}

/**
 * The route-level check the auth plugin runs once the caller is known: a `write` route needs a
 * caller who may write in at least one entity, an `admin` route one who administers at least one.
 * The entity of the request is the service's to check (ProjectAccess).
 */
export function checkRouteAccess(caller: Caller, access: RouteAccess, route: string): void {
  // a caller of no entity reaches no project: the tenancy check refuses it with its own reason
  if (access === 'read' || caller.isAdmin || caller.roles.size === 0) return;
  const roles = [...caller.roles.values()];
  if (access === 'write' && !roles.some((r) => r === 'admin' || r === 'member')) {
    const entities = [...caller.roles.keys()];
    throw new ForbiddenError(
      entities.length === 1
        ? `${viewerMessage(entities[0]!)} (${route} writes)`
        : `Your role is viewer (read only) in every entity you belong to: ${route} writes`,
    );
  }
  if (access === 'admin' && !roles.includes('admin'))
    throw new ForbiddenError(`Only an admin of an entity or an instance admin can use ${route}`);
}
