import { isJsonObject, isLosslessNumber } from '../domain/json-value.js';
import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import * as S from '../schemas/tables.js';
import type { Services } from '../services/index.js';
import { sendJsonText, sendJsonl } from './jsonl.js';
import type { RouteApp } from './route-app.js';

const tags = ['Tables'];

/**
 * `/table/update` bodies are parsed losslessly (rows are hashed), so an integer `index` arrives
 * as a number literal object; it becomes a plain number before validation when it is one.
 */
function plainIndexes(body: unknown): void {
  if (!isJsonObject(body) || !Array.isArray(body.updates)) return;
  for (const spec of body.updates) {
    for (const op of ['pop', 'insert']) {
      const inner = isJsonObject(spec) ? spec[op] : undefined;
      if (isJsonObject(inner) && isLosslessNumber(inner.index) && /^-?\d+$/.test(inner.index.value)) {
        inner.index = Number(inner.index.value);
      }
    }
  }
}

/** The tables and refs APIs (docs/spec/objects.md §4, §5). */
export default async function tablesRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { tables, refs } = services;

  // rows are hashed, so these routes parse bodies keeping number literals (§1.2)
  await app.register(async (lossless: RouteApp) => {
    useLosslessJsonBodies(lossless);
    lossless.post(
      '/table/create',
      { schema: { tags, body: S.TableCreateReq, response: { 200: S.TableCreateRes } } },
      (request) => tables.create(request.caller, request.body),
    );
    lossless.post(
      '/table/update',
      {
        schema: { tags, body: S.TableUpdateReq, response: { 200: S.TableUpdateRes } },
        preValidation: async (request) => plainIndexes(request.body),
      },
      (request) => tables.update(request.caller, request.body),
    );
  });

  app.post(
    '/table/create_from_digests',
    { schema: { tags, body: S.TableCreateFromDigestsReq, response: { 200: S.TableCreateFromDigestsRes } } },
    (request) => tables.createFromDigests(request.caller, request.body),
  );

  app.post(
    '/table/query',
    { schema: { tags, body: S.TableQueryReq, response: { 200: S.TableQueryRes } } },
    async (request, reply) => sendJsonText(reply, await tables.query(request.caller, request.body)),
  );

  app.post('/table/query_stream', { schema: { tags, body: S.TableQueryReq } }, async (request, reply) => {
    const lines = await tables.queryLines(request.caller, request.body);
    return sendJsonl(
      reply,
      (async function* withNewlines() {
        for await (const line of lines) yield `${line}\n`;
      })(),
    );
  });

  app.post(
    '/table/query_stats',
    { schema: { tags, body: S.TableQueryStatsReq, response: { 200: S.TableQueryStatsRes } } },
    (request) => tables.queryStats(request.caller, request.body),
  );

  app.post(
    '/table/query_stats_batch',
    { schema: { tags, body: S.TableQueryStatsBatchReq, response: { 200: S.TableQueryStatsBatchRes } } },
    (request) => tables.queryStatsBatch(request.caller, request.body),
  );

  app.post(
    '/refs/read_batch',
    { schema: { tags: ['Refs'], body: S.RefsReadBatchReq, response: { 200: S.RefsReadBatchRes } } },
    async (request, reply) => sendJsonText(reply, await refs.readBatch(request.caller, request.body.refs)),
  );
}
