import { ProjectPathParams } from '../schemas/projects.js';
import * as S from '../schemas/retention.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

const tags = ['Projects'];

/** A project's retention policy, dry runs and runs (docs/export.md "Retention"). */
export default async function retentionRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { retention } = services;
  app.get(
    '/projects/:entity/:project/retention',
    {
      schema: {
        tags,
        summary: "The project's retention policy and its last run",
        params: ProjectPathParams,
        response: { 200: S.RetentionPolicyRes },
      },
    },
    (request) => retention.get(request.caller, request.params.entity, request.params.project),
  );
  app.put(
    '/projects/:entity/:project/retention',
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
    (request) =>
      retention.set(
        request.caller,
        request.params.entity,
        request.params.project,
        request.body.keep_days,
        request.query.dry_run === 'true',
      ),
  );
  app.delete(
    '/projects/:entity/:project/retention',
    {
      schema: {
        tags,
        summary: 'Remove the retention policy (calls are kept for ever)',
        params: ProjectPathParams,
        response: { 200: S.RetentionPolicyRes },
      },
    },
    (request) => retention.remove(request.caller, request.params.entity, request.params.project),
  );
  app.post(
    '/projects/:entity/:project/retention/apply',
    {
      schema: {
        tags,
        summary: 'Run the retention policy now as a background job, or count what it would remove (dry_run)',
        params: ProjectPathParams,
        body: S.RetentionApplyReq,
        response: { 200: S.RetentionApplyRes },
      },
    },
    (request) => retention.apply(request.caller, request.params.entity, request.params.project, request.body),
  );
  app.get(
    '/projects/:entity/:project/retention/jobs/:job_id',
    {
      schema: {
        tags,
        summary: 'The state of a retention job',
        params: S.RetentionJobParams,
        response: { 200: S.RetentionJobRes },
      },
    },
    (request) => retention.job(request.caller, request.params.entity, request.params.project, request.params.job_id),
  );
}
