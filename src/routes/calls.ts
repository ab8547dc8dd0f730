import { RequestValidationError } from '../errors/app-error.js';
import { createAjv, toValidationDetails } from '../schemas/ajv.js';
import * as S from '../schemas/calls.js';
import { EmptyRes } from '../schemas/common.js';
import { Operand } from '../schemas/query.js';
import type { Services } from '../services/index.js';
import { sendJsonText, sendJsonl } from './jsonl.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Calls'];

/** The calls API (docs/spec/calls.md §4.1–4.8). */
export default async function callsRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callWrites, callQueries } = services;
  // batch items are checked one by one so a failure names its item (`["body","batch","3","req",…]`)
  const ajv = createAjv([Operand]);
  const validators = { start: ajv.compile(S.CallStartReq), end: ajv.compile(S.CallEndReq) };
  const validateItem = (kind: 'start' | 'end', req: unknown, loc: string[]): void => {
    const validate = validators[kind];
    if (!validate(req)) {
      const details = toValidationDetails(validate.errors ?? [], 'body').map((d) => ({
        ...d,
        loc: [...loc, ...d.loc.slice(1)],
      }));
      throw new RequestValidationError(details);
    }
  };

  const post = jsonPost(app, tags);
  post('/call/start', { body: S.CallStartReq, ok: S.CallStartRes }, (caller, body) =>
    callWrites.callStart(caller, body),
  );
  post('/call/end', { body: S.CallEndReq, ok: S.CallEndRes }, (caller, body) => callWrites.callEnd(caller, body));
  post(
    '/call/upsert_batch',
    { summary: 'Call Start Batch', body: S.CallCreateBatchReq, ok: S.CallCreateBatchRes },
    (caller, body) => callWrites.callUpsertBatch(caller, body.batch, validateItem),
  );

  app.post(
    '/call/read',
    { schema: { tags, body: S.CallReadReq, response: { 200: S.CallReadRes } } },
    async (request, reply) => sendJsonText(reply, await callQueries.callRead(request.caller, request.body)),
  );

  post('/call/update', { body: S.CallUpdateReq, ok: EmptyRes }, (caller, body) => callWrites.callUpdate(caller, body));
  post('/calls/delete', { body: S.CallsDeleteReq, ok: S.CallsDeleteRes }, (caller, body) =>
    callWrites.callsDelete(caller, body),
  );

  app.post(
    '/calls/stream_query',
    { schema: { tags, summary: 'Calls Query Stream', body: S.CallsQueryReq, produces: ['application/jsonl'] } },
    async (request, reply) => sendJsonl(reply, await callQueries.callsQueryStream(request.caller, request.body)),
  );

  app.post(
    '/calls/query',
    { schema: { tags, body: S.CallsQueryReq, response: { 200: S.CallsQueryRes } } },
    async (request, reply) => {
      const lines = await callQueries.callsQueryStream(request.caller, request.body);
      const calls: string[] = [];
      for await (const line of lines) calls.push(line.slice(0, -1));
      return sendJsonText(reply, `{"calls":[${calls.join(',')}]}`);
    },
  );

  post('/calls/query_stats', { body: S.CallsQueryStatsReq, ok: S.CallsQueryStatsRes }, (caller, body) =>
    callQueries.callsQueryStats(caller, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const callsArea = routeArea('calls', callsRoutes, {
  'POST /call/start': 'write',
  'POST /call/end': 'write',
  'POST /call/upsert_batch': 'write',
  'POST /call/update': 'write',
  'POST /calls/delete': 'write',
  'POST /call/read': 'read',
  'POST /calls/stream_query': 'read',
  'POST /calls/query': 'read',
  'POST /calls/query_stats': 'read',
});
