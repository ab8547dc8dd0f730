import * as S from '../schemas/calls-v2.js';
import { CallEndRes, CallStartRes } from '../schemas/calls.js';
import { assertSameProject } from '../services/call-service.js';
import type { Services } from '../services/index.js';
import { paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** Project-scoped call writes of the official Python client (see schemas/calls-v2.ts). */
export default async function callsV2Routes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callWrites } = services;
  const projectOf = ({ entity, project }: S.ProjectParams): string => `${entity}/${project}`;
  const route = paramsRoutes(app, ['Calls']);

  route.withBody(
    'POST',
    '/v2/:entity/:project/calls/complete',
    {
      summary: 'Calls Upsert Complete',
      params: S.ProjectParams,
      body: S.CallsUpsertCompleteReq,
      ok: S.CallsUpsertCompleteRes,
    },
    (caller, params, body) => callWrites.callsComplete(caller, projectOf(params), body.batch),
  );

  route.withBody(
    'POST',
    '/v2/:entity/:project/call/start',
    { summary: 'Call Start V2', params: S.ProjectParams, body: S.CallStartV2Req, ok: CallStartRes },
    (caller, params, body) => {
      assertSameProject(projectOf(params), body.start.project_id, ['body', 'start', 'project_id']);
      return callWrites.callStart(caller, body);
    },
  );

  route.withBody(
    'POST',
    '/v2/:entity/:project/call/end',
    { summary: 'Call End V2', params: S.ProjectParams, body: S.CallEndV2Req, ok: CallEndRes },
    (caller, params, body) => {
      assertSameProject(projectOf(params), body.end.project_id, ['body', 'end', 'project_id']);
      return callWrites.callEnd(caller, body);
    },
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const callsV2Area = routeArea('calls-v2', callsV2Routes, {
  'POST /v2/:entity/:project/calls/complete': 'write',
  'POST /v2/:entity/:project/call/start': 'write',
  'POST /v2/:entity/:project/call/end': 'write',
});
