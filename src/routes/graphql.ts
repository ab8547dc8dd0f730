import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/**
 * `POST /graphql`: the W&B GraphQL surface the Weave clients use during `weave.init` (viewer,
 * entity, project, serverInfo, upsertModel). Authenticated like every route; outside the trace
 * server's OpenAPI document because it is W&B's API, not Weave's.
 */
export default async function graphqlRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  app.post('/graphql', { schema: { hide: true } }, async (request, reply) => {
    const requestOrigin = `${request.protocol}://${request.host}`;
    const result = await services.graphql.execute(request.body, { caller: request.caller, requestOrigin });
    for (const error of result.internalErrors) request.log.error({ err: error }, 'GraphQL resolver failed');
    return reply.code(result.status).type('application/json').send(result.body);
  });
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const graphqlArea = routeArea('graphql', graphqlRoutes, {
  // GraphQL is read by weave.init; its one write (upsertModel creating a project) checks the role itself
  'POST /graphql': 'read',
});
