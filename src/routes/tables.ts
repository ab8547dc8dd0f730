import { isJsonObject, isLosslessNumber } from '../domain/json-value.js';
import { useLosslessJsonBodies } from '../plugins/lossless-json-body.js';
import * as S from '../schemas/tables.js';
import type { Services } from '../services/index.js';
import { sendJsonText, sendJsonl } from './jsonl.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

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
    jsonPost(lossless, tags)('/table/create', { body: S.TableCreateReq, ok: S.TableCreateRes }, (caller, body) =>
      tables.create(caller, body),
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

  const post = jsonPost(app, tags);
  post(
    '/table/create_from_digests',
    { body: S.TableCreateFromDigestsReq, ok: S.TableCreateFromDigestsRes },
    (caller, body) => tables.createFromDigests(caller, body),
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

  post('/table/query_stats', { body: S.TableQueryStatsReq, ok: S.TableQueryStatsRes }, (caller, body) =>
    tables.queryStats(caller, body),
  );
  post('/table/query_stats_batch', { body: S.TableQueryStatsBatchReq, ok: S.TableQueryStatsBatchRes }, (caller, body) =>
    tables.queryStatsBatch(caller, body),
  );

  app.post(
    '/refs/read_batch',
    { schema: { tags: ['Refs'], body: S.RefsReadBatchReq, response: { 200: S.RefsReadBatchRes } } },
    async (request, reply) => sendJsonText(reply, await refs.readBatch(request.caller, request.body.refs)),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const tablesArea = routeArea('tables', tablesRoutes, {
  'POST /table/create': 'write',
  'POST /table/update': 'write',
  'POST /table/create_from_digests': 'write',
  'POST /table/query': 'read',
  'POST /table/query_stream': 'read',
  'POST /table/query_stats': 'read',
  'POST /table/query_stats_batch': 'read',
  'POST /refs/read_batch': 'read',
});
