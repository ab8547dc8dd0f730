import * as S from '../schemas/calls-v2.js';
import { CallEndRes, CallStartRes } from '../schemas/calls.js';
import { assertSameProject } from '../services/call-service.js';
import type { Services } from '../services/index.js';
import { paramsBodySchema, type RouteApp } from './route-app.js';

/** Project-scoped call writes of the official Python client (see schemas/calls-v2.ts). */
export default async function callsV2Routes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callWrites } = services;
  const projectOf = ({ entity, project }: S.ProjectParams): string => `${entity}/${project}`;

  app.post(
    '/v2/:entity/:project/calls/complete',
    {
      schema: paramsBodySchema('Calls', 'Calls Upsert Complete', {
        params: S.ProjectParams,
        body: S.CallsUpsertCompleteReq,
        ok: S.CallsUpsertCompleteRes,
      }),
    },
    (request) => callWrites.callsComplete(request.caller, projectOf(request.params), request.body.batch),
  );

  app.post(
    '/v2/:entity/:project/call/start',
    {
      schema: paramsBodySchema('Calls', 'Call Start V2', {
        params: S.ProjectParams,
        body: S.CallStartV2Req,
        ok: CallStartRes,
      }),
    },
    (request) => {
      const body = request.body;
      assertSameProject(projectOf(request.params), body.start.project_id, ['body', 'start', 'project_id']);
      return callWrites.callStart(request.caller, body);
    },
  );

  app.post(
    '/v2/:entity/:project/call/end',
    {
      schema: paramsBodySchema('Calls', 'Call End V2', {
        params: S.ProjectParams,
        body: S.CallEndV2Req,
        ok: CallEndRes,
      }),
    },
    (request) => {
      const body = request.body;
      assertSameProject(projectOf(request.params), body.end.project_id, ['body', 'end', 'project_id']);
      return callWrites.callEnd(request.caller, body);
    },
  );
}
