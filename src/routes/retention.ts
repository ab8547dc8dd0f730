import { ProjectPathParams } from '../schemas/projects.js';
import * as S from '../schemas/retention.js';
import type { Services } from '../services/index.js';
import { paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Projects'];

/** A project's retention policy, dry runs and runs (docs/export.md "Retention"). */
export default async function retentionRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { retention } = services;
  const route = paramsRoutes(app, tags);
  const path = '/projects/:entity/:project/retention';
  const policy = { params: ProjectPathParams, ok: S.RetentionPolicyRes };
  route.withParams(
    'GET',
    path,
    { summary: "The project's retention policy and its last run", ...policy },
    (caller, { entity, project }) => retention.get(caller, entity, project),
  );
  app.put(
    path,
    {
      schema: {
        tags,
        summary: 'Set the retention policy: keep calls for keep_days days (dry_run=true: only count what it removes)',
        params: ProjectPathParams,
        querystring: S.RetentionDryRunQuery,
        body: S.RetentionPolicyReq,
        response: { 200: S.RetentionPolicyRes },
      },
    },
    (request) => {
      const { entity, project } = request.params;
      return retention.set(request.caller, entity, project, request.body.keep_days, request.query.dry_run === 'true');
    },
  );
  route.withParams(
    'DELETE',
    path,
    { summary: 'Remove the retention policy (calls are kept for ever)', ...policy },
    (caller, { entity, project }) => retention.remove(caller, entity, project),
  );
  route.withBody(
    'POST',
    `${path}/apply`,
    {
      summary: 'Run the retention policy now as a background job, or count what it would remove (dry_run)',
      params: ProjectPathParams,
      body: S.RetentionApplyReq,
      ok: S.RetentionApplyRes,
    },
    (caller, { entity, project }, body) => retention.apply(caller, entity, project, body),
  );
  route.withParams(
    'GET',
    `${path}/jobs/:job_id`,
    { summary: 'The state of a retention job', params: S.RetentionJobParams, ok: S.RetentionJobRes },
    (caller, { entity, project, job_id }) => retention.job(caller, entity, project, job_id),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const retentionArea = routeArea('retention', retentionRoutes, {
  // retention: members set and run it (audited as retention.changed / retention.applied)
  'GET /projects/:entity/:project/retention': 'read',
  'PUT /projects/:entity/:project/retention': 'write',
  'DELETE /projects/:entity/:project/retention': 'write',
  'POST /projects/:entity/:project/retention/apply': 'write',
  'GET /projects/:entity/:project/retention/jobs/:job_id': 'read',
});
