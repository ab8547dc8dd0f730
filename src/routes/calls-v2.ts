import * as S from '../schemas/calls-v2.js';
import { CallEndRes, CallStartRes } from '../schemas/calls.js';
import { assertSameProject } from '../services/call-service.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

const tags = ['Calls'];

/** Project-scoped call writes of the official Python client (see schemas/calls-v2.ts). */
export default async function callsV2Routes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callWrites } = services;
  const projectOf = ({ entity, project }: S.ProjectParams): string => `${entity}/${project}`;

  app.post(
    '/v2/:entity/:project/calls/complete',
    {
      schema: {
        tags,
        summary: 'Calls Upsert Complete',
        params: S.ProjectParams,
        body: S.CallsUpsertCompleteReq,
        response: { 200: S.CallsUpsertCompleteRes },
      },
    },
    (request) => callWrites.callsComplete(request.caller, projectOf(request.params), request.body.batch),
  );

  app.post(
    '/v2/:entity/:project/call/start',
    {
      schema: {
        tags,
        summary: 'Call Start V2',
        params: S.ProjectParams,
        body: S.CallStartV2Req,
        response: { 200: CallStartRes },
      },
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
      schema: {
        tags,
        summary: 'Call End V2',
        params: S.ProjectParams,
        body: S.CallEndV2Req,
        response: { 200: CallEndRes },
      },
    },
    (request) => {
      const body = request.body;
      assertSameProject(projectOf(request.params), body.end.project_id, ['body', 'end', 'project_id']);
      return callWrites.callEnd(request.caller, body);
    },
  );
}
