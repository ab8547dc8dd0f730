import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { RouteInfo } from '../../src/plugins/route-table.js';

/**
 * One entry per registered route (key `"METHOD /url-pattern"`, exactly as Fastify registered it).
 * The security tests walk `app.routeTable` and FAIL for any route that has no entry here, so a new
 * route cannot skip the auth and tenancy checks by being forgotten.
 *
 * - `request(projectId)`: a minimal request that is VALID for the route's schema and names the
 *   project `projectId` ("entity/project") wherever the route takes one. The tenancy test sends it
 *   for a project of an entity the caller does not belong to and expects 403; the owner of that
 *   entity must get a non-error answer (2xx or 404) with the same request.
 * - `noProject`: the route touches no project (service information); say why.
 */
export interface RouteCase {
  request?: (projectId: string) => { url: string; body?: unknown };
  noProject?: string;
  /**
   * For routes whose protocol does not refuse with 403 (GraphQL answers 200 with `errors`): true
   * when `res` is that protocol's refusal; `allowed` checks the owner's answer likewise.
   */
  refused?: (res: LightMyRequestResponse) => boolean;
  allowed?: (res: LightMyRequestResponse) => boolean;
}

const T0 = '2025-01-01T10:00:00Z';

function startReq(projectId: string): Record<string, unknown> {
  return { start: { project_id: projectId, id: 'sec-call', trace_id: 'sec-trace', op_name: 'op', started_at: T0, attributes: {}, inputs: {} } };
}

function endReq(projectId: string): Record<string, unknown> {
  return { end: { project_id: projectId, id: 'sec-call', ended_at: T0, summary: {} } };
}

const post = (url: string, body: (p: string) => unknown): RouteCase => ({ request: (p) => ({ url, body: body(p) }) });

export const ROUTE_CASES: Record<string, RouteCase> = {
  // ---- service information (otel-service-queues spec §B)
  'GET /version': { noProject: 'service version, no project' },
  'GET /server_info': { noProject: 'server information, no project' },
  'GET /geolocate': { noProject: 'location of an IP address, no project' },
  'POST /service/projects_info': post('/service/projects_info', (p) => ({ project_ids: [p] })),

  // ---- calls (calls spec §4)
  'POST /call/start': post('/call/start', startReq),
  'POST /call/end': post('/call/end', endReq),
  'POST /call/upsert_batch': post('/call/upsert_batch', (p) => ({
    batch: [
      { mode: 'start', req: startReq(p) },
      { mode: 'end', req: endReq(p) },
    ],
  })),
  'POST /call/read': post('/call/read', (p) => ({ project_id: p, id: 'sec-call' })),
  'POST /call/update': post('/call/update', (p) => ({ project_id: p, call_id: 'sec-call', display_name: 'renamed' })),
  'POST /calls/delete': post('/calls/delete', (p) => ({ project_id: p, call_ids: ['sec-call'] })),
  'POST /calls/stream_query': post('/calls/stream_query', (p) => ({ project_id: p })),
  'POST /calls/query': post('/calls/query', (p) => ({ project_id: p })),
  'POST /calls/query_stats': post('/calls/query_stats', (p) => ({ project_id: p })),
  'POST /calls/stats': post('/calls/stats', (p) => ({ project_id: p, start: T0 })),
  'POST /calls/usage': post('/calls/usage', (p) => ({ project_id: p, call_ids: ['sec-call'] })),
  'POST /trace/usage': post('/trace/usage', (p) => ({ project_id: p })),
  'POST /threads/stream_query': post('/threads/stream_query', (p) => ({ project_id: p })),

  // ---- W&B GraphQL used by weave.init: creating a project is the tenancy-relevant operation.
  'POST /graphql': {
    request: (p) => ({
      url: '/graphql',
      body: {
        query: 'mutation Up($e: String, $n: String) { upsertModel(input: { entityName: $e, name: $n }) { inserted project { name } } }',
        variables: { e: p.split('/')[0], n: p.split('/')[1] },
      },
    }),
    refused: (res) => res.statusCode === 200 && graphqlCode(res) === 'PERMISSION_ERROR' && res.json().data?.upsertModel == null,
    allowed: (res) => res.statusCode === 200 && res.json().errors === undefined && typeof res.json().data?.upsertModel?.inserted === 'boolean',
  },
};

function graphqlCode(res: LightMyRequestResponse): unknown {
  return (res.json() as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors?.[0]?.extensions?.code;
}

export const routeKey = (route: Pick<RouteInfo, 'method' | 'url'>): string => `${route.method} ${route.url}`;

/**
 * The routes a caller must authenticate for: every registered route except public ones and
 * Fastify's automatic HEAD twins (they share their GET route's hooks).
 */
export function authenticatedRoutes(app: FastifyInstance): RouteInfo[] {
  return app.routeTable.filter((r) => !r.public && !r.autoHead);
}

/** Authenticated routes with no entry in ROUTE_CASES (must stay empty). */
export function routesWithoutCase(app: FastifyInstance): string[] {
  return authenticatedRoutes(app)
    .map(routeKey)
    .filter((key) => !(key in ROUTE_CASES));
}

/** A request for a route: its case, or for the auth tests (which never get past auth) a bare URL. */
export function requestFor(route: RouteInfo, projectId: string): { url: string; body?: unknown } {
  const entry = ROUTE_CASES[routeKey(route)];
  if (entry?.request) return entry.request(projectId);
  return { url: route.url.replace(/:([A-Za-z0-9_]+)/g, 'x').replace(/\*/g, 'x'), body: route.method === 'GET' ? undefined : {} };
}
