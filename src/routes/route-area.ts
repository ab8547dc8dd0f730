import type { Config } from '../config/config.js';
import type { RouteAccess, RouteAccessTable } from '../plugins/route-access.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

/** What every route plugin may use: the services and the configuration. */
export interface RouteDeps {
  services: Services;
  config: Config;
}

/**
 * An endpoint group as the app registers it (routes/index.ts `ROUTE_AREAS`): its route plugin and
 * what each of its routes needs of the caller's role, keyed `"METHOD /url-pattern"` exactly as the
 * route is registered (HEAD routes follow their GET; a public route needs no entry). The role
 * policy (plugins/route-access.ts) reads these tables, so a route's path, schema and access all live
 * in its own file.
 */
export interface RouteArea {
  readonly name: string;
  register(app: RouteApp, deps: RouteDeps): Promise<void>;
  readonly access: RouteAccessTable;
}

/** An area over a route plugin that takes `{ services }` (or the options `options` derives). */
export function routeArea<O extends { services: Services }>(
  name: string,
  plugin: (app: RouteApp, options: O) => Promise<void>,
  access: Readonly<Record<string, RouteAccess>>,
  options: (deps: RouteDeps) => O = (deps) => ({ services: deps.services }) as O,
): RouteArea {
  return {
    name,
    access,
    register: async (app, deps) => {
      await app.register(plugin, options(deps));
    },
  };
}

/** Every area's access in one table; a route classified twice is a programming error. */
export function accessTable(areas: readonly RouteArea[]): RouteAccessTable {
  const table: Record<string, RouteAccess> = {};
  for (const area of areas)
    for (const [route, access] of Object.entries(area.access)) {
      if (route in table) throw new Error(`route ${route} is classified twice (area ${area.name})`);
      table[route] = access;
    }
  return table;
}
