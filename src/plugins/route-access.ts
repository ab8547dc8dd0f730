import { ForbiddenError } from '../errors/app-error.js';
import { viewerMessage } from '../services/project-access.js';
import type { Caller } from '../services/auth-service.js';

/**
 * What each route needs of the caller's role (docs/roles-and-audit.md), decided here for every
 * route in one table so the whole policy reads at a glance:
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
 * A route may also declare `config.access` itself. A route in neither place is treated as `write`
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

const V2_OBJECT_FAMILIES = ['ops', 'datasets', 'scorers', 'models', 'evaluations'];

function v2Objects(): Record<string, RouteAccess> {
  const table: Record<string, RouteAccess> = {};
  for (const family of V2_OBJECT_FAMILIES) {
    table[`POST /v2/:entity/:project/${family}`] = 'write';
    table[`GET /v2/:entity/:project/${family}`] = 'read';
    table[`GET /v2/:entity/:project/${family}/:object_id/versions/:digest`] = 'read';
    table[`DELETE /v2/:entity/:project/${family}/:object_id`] = 'write';
  }
  for (const kind of ['evaluation_runs', 'predictions', 'scores']) {
    const id = kind === 'evaluation_runs' ? 'evaluation_run_id' : kind === 'predictions' ? 'prediction_id' : 'score_id';
    table[`POST /v2/:entity/:project/${kind}`] = 'write';
    table[`GET /v2/:entity/:project/${kind}`] = 'read';
    table[`GET /v2/:entity/:project/${kind}/:${id}`] = 'read';
    table[`DELETE /v2/:entity/:project/${kind}`] = 'write';
  }
  table['POST /v2/:entity/:project/evaluation_runs/:evaluation_run_id/finish'] = 'write';
  table['POST /v2/:entity/:project/predictions/:prediction_id/finish'] = 'write';
  return table;
}

/** Key: `"METHOD /url-pattern"` exactly as the route is registered (HEAD routes follow their GET). */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  // service information and the web UI's own reads
  'GET /version': 'read',
  'GET /server_info': 'read',
  'GET /geolocate': 'read',
  'POST /service/projects_info': 'read',
  'GET /auth/session': 'read',
  'GET /projects': 'read',
  'GET /calls/live_tail': 'read',
  'GET /inference/analysis/:partner/models': 'read',
  'GET /inference/router/:partner/models': 'read',
  'GET /inference/:partner/v2/hardware': 'read',
  // calls
  'POST /call/start': 'write',
  'POST /call/end': 'write',
  'POST /call/upsert_batch': 'write',
  'POST /call/update': 'write',
  'POST /calls/delete': 'write',
  'POST /v2/:entity/:project/calls/complete': 'write',
  'POST /v2/:entity/:project/call/start': 'write',
  'POST /v2/:entity/:project/call/end': 'write',
  'POST /call/read': 'read',
  'POST /calls/stream_query': 'read',
  'POST /calls/query': 'read',
  'POST /calls/query_stats': 'read',
  'POST /calls/export': 'read',
  'POST /calls/stats': 'read',
  'POST /calls/usage': 'read',
  'POST /trace/usage': 'read',
  'POST /threads/stream_query': 'read',
  // projects
  'GET /projects/:entity/:project/usage': 'read',
  'DELETE /projects/:entity/:project': 'admin',
  // retention: members set and run it (audited as retention.changed / retention.applied)
  'GET /projects/:entity/:project/retention': 'read',
  'PUT /projects/:entity/:project/retention': 'write',
  'DELETE /projects/:entity/:project/retention': 'write',
  'POST /projects/:entity/:project/retention/apply': 'write',
  'GET /projects/:entity/:project/retention/jobs/:job_id': 'read',
  // whole-project transfer (docs/export.md); an import writes digests as given, so it is admin-only
  'GET /projects/:entity/:project/export': 'read',
  'POST /projects/:entity/:project/import': 'admin',
  // objects, tables, refs, files, images
  'POST /obj/create': 'write',
  'POST /obj/delete': 'write',
  'POST /obj/read': 'read',
  'POST /objs/query': 'read',
  'PUT /objs/:object_id/versions/:digest/tags': 'write',
  'POST /objs/:object_id/versions/:digest/tags/remove': 'write',
  'PUT /objs/:object_id/aliases': 'write',
  'POST /objs/:object_id/aliases/remove': 'write',
  'GET /tags': 'read',
  'GET /aliases': 'read',
  'POST /table/create': 'write',
  'POST /table/update': 'write',
  'POST /table/create_from_digests': 'write',
  'POST /table/query': 'read',
  'POST /table/query_stream': 'read',
  'POST /table/query_stats': 'read',
  'POST /table/query_stats_batch': 'read',
  'POST /refs/read_batch': 'read',
  'POST /image/create': 'write',
  'POST /file/create': 'write',
  'POST /files/create': 'write',
  'POST /file/content': 'read',
  'POST /files/content': 'read',
  'POST /files/query_stats': 'read',
  // GraphQL is read by weave.init; its one write (upsertModel creating a project) checks the role itself
  'POST /graphql': 'read',
  // feedback and prices
  'POST /feedback/create': 'write',
  'POST /feedback/batch/create': 'write',
  'POST /feedback/replace': 'write',
  'POST /feedback/purge': 'write',
  'POST /feedback/query': 'read',
  'POST /feedback/payload_schema': 'read',
  'POST /feedback/stats': 'read',
  'POST /cost/create': 'write',
  'POST /cost/purge': 'write',
  'POST /cost/query': 'read',
  // OTLP ingest
  'POST /otel/v1/traces': 'write',
  'POST /otel/v1/trace': 'write',
  // training: models, jobs, inference, and the external workers that write job results
  'POST /v1/preview/models': 'write',
  'GET /v1/preview/models': 'read',
  'GET /v1/preview/models/:model_id': 'read',
  'DELETE /v1/preview/models/:model_id': 'write',
  'GET /v1/preview/models/:model_id/checkpoints': 'read',
  'GET /v1/preview/models/:model_id/training-jobs': 'read',
  'GET /v1/preview/models/:model_id/history': 'read',
  'DELETE /v1/preview/models/:model_id/checkpoints': 'write',
  'POST /v1/preview/models/:model_id/log': 'write',
  'POST /v1/preview/training-jobs': 'write',
  'POST /v1/preview/sft-training-jobs': 'write',
  'GET /v1/preview/training-jobs/:training_job_id': 'read',
  'GET /v1/preview/training-jobs/:training_job_id/events': 'read',
  'POST /v1/chat/completions': 'read',
  'POST /v1/workers/lease': 'write',
  // only the worker holding the job's lease asks for it, and leasing is a write
  'GET /v1/workers/jobs/:job_id/parent-checkpoint': 'write',
  // a worker asked to serve a step it does not hold downloads it: model weights, so write like the rest
  'GET /v1/workers/models/:model_id/checkpoints/:step': 'write',
  'POST /v1/workers/jobs/:job_id/heartbeat': 'write',
  'POST /v1/workers/jobs/:job_id/events': 'write',
  'POST /v1/workers/jobs/:job_id/complete': 'write',
  'POST /v1/workers/jobs/:job_id/checkpoint': 'write',
  'POST /v1/workers/jobs/:job_id/fail': 'write',
  'POST /v1/workers/jobs/:job_id/release': 'write',
  // annotation queues
  'POST /annotation_queues': 'write',
  'PUT /annotation_queues/:queue_id': 'write',
  'DELETE /annotation_queues/:queue_id': 'write',
  'POST /annotation_queues/:queue_id/items': 'write',
  'POST /annotation_queues/:queue_id/items/:item_id/progress': 'write',
  'POST /annotation_queues/query': 'read',
  'POST /annotation_queues/stats': 'read',
  'GET /annotation_queues/:queue_id': 'read',
  'POST /annotation_queues/:queue_id/items/query': 'read',
  // evaluations (v2 objects, runs, predictions, scores; server-side evaluations and scoring)
  ...v2Objects(),
  'POST /v2/:entity/:project/eval_results/query': 'read',
  'POST /evaluations/evaluate_model': 'write',
  'POST /calls/score': 'write',
  'POST /evaluations/status': 'read',
  // administration
  'POST /keys/create': 'admin',
  'POST /keys/query': 'admin',
  'POST /keys/revoke': 'admin',
  'POST /memberships/update': 'admin',
  'POST /memberships/query': 'admin',
  'GET /audit': 'admin',
};

/** The declared access of a route (`config.access`, else the table); null when neither says. */
export function declaredAccess(method: string, url: string, config: { access?: RouteAccess } | undefined) {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  return config?.access ?? ROUTE_ACCESS[key] ?? null;
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
