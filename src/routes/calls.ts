import { RequestValidationError } from '../errors/app-error.js';
import { createAjv, toValidationDetails } from '../schemas/ajv.js';
import * as S from '../schemas/calls.js';
import { EmptyRes } from '../schemas/common.js';
import { Operand } from '../schemas/query.js';
import type { Services } from '../services/index.js';
import { sendJsonText, sendJsonl } from './jsonl.js';
import type { RouteApp } from './route-app.js';

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

  app.post('/call/start', { schema: { tags, body: S.CallStartReq, response: { 200: S.CallStartRes } } }, (request) =>
    callWrites.callStart(request.caller, request.body),
  );

  app.post('/call/end', { schema: { tags, body: S.CallEndReq, response: { 200: S.CallEndRes } } }, (request) =>
    callWrites.callEnd(request.caller, request.body),
  );

  app.post(
    '/call/upsert_batch',
    {
      schema: {
        tags,
        summary: 'Call Start Batch',
        body: S.CallCreateBatchReq,
        response: { 200: S.CallCreateBatchRes },
      },
    },
    (request) => callWrites.callUpsertBatch(request.caller, request.body.batch, validateItem),
  );

  app.post(
    '/call/read',
    { schema: { tags, body: S.CallReadReq, response: { 200: S.CallReadRes } } },
    async (request, reply) => sendJsonText(reply, await callQueries.callRead(request.caller, request.body)),
  );

  app.post('/call/update', { schema: { tags, body: S.CallUpdateReq, response: { 200: EmptyRes } } }, (request) =>
    callWrites.callUpdate(request.caller, request.body),
  );

  app.post(
    '/calls/delete',
    { schema: { tags, body: S.CallsDeleteReq, response: { 200: S.CallsDeleteRes } } },
    (request) => callWrites.callsDelete(request.caller, request.body),
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

  app.post(
    '/calls/query_stats',
    { schema: { tags, body: S.CallsQueryStatsReq, response: { 200: S.CallsQueryStatsRes } } },
    (request) => callQueries.callsQueryStats(request.caller, request.body),
  );
}
