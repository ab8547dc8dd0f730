import * as S from '../schemas/annotation-queues.js';
import type { Services } from '../services/index.js';
import { sendJsonl } from './jsonl.js';
import { paramsBodySchema, paramsQuerySchema, type RouteApp } from './route-app.js';

const TAG = 'Annotation Queues';
const tags = [TAG];

/** Annotation queues, their items and review progress (docs/spec/otel-service-queues.md §D). */
export default async function annotationQueueRoutes(
  app: RouteApp,
  { services }: { services: Services },
): Promise<void> {
  const { annotationQueues: queues } = services;
  app.post(
    '/annotation_queues',
    {
      schema: { tags, summary: 'Annotation Queue Create', body: S.QueueCreateReq, response: { 200: S.QueueCreateRes } },
    },
    async (request) => queues.create(request.caller, request.body),
  );
  app.post(
    '/annotation_queues/query',
    { schema: { tags, summary: 'Annotation Queues Query Stream', body: S.QueueQueryReq } },
    async (request, reply) => sendJsonl(reply, queues.query(request.caller, request.body)),
  );
  app.post(
    '/annotation_queues/stats',
    { schema: { tags, summary: 'Annotation Queues Stats', body: S.QueueStatsReq, response: { 200: S.QueueStatsRes } } },
    async (request) => queues.stats(request.caller, request.body),
  );
  app.get(
    '/annotation_queues/:queue_id',
    {
      schema: paramsQuerySchema(TAG, 'Annotation Queue Read', {
        params: S.QueueParams,
        querystring: S.ProjectQuery,
        ok: S.QueueRes,
      }),
    },
    async (request) => queues.read(request.caller, request.query.project_id, request.params.queue_id),
  );
  app.put(
    '/annotation_queues/:queue_id',
    {
      schema: paramsBodySchema(TAG, 'Annotation Queue Update', {
        params: S.QueueParams,
        body: S.QueueUpdateReq,
        ok: S.QueueRes,
      }),
    },
    async (request) => queues.update(request.caller, request.params.queue_id, request.body),
  );
  app.delete(
    '/annotation_queues/:queue_id',
    {
      schema: paramsQuerySchema(TAG, 'Annotation Queue Delete', {
        params: S.QueueParams,
        querystring: S.ProjectQuery,
        ok: S.QueueRes,
      }),
    },
    async (request) => queues.delete(request.caller, request.query.project_id, request.params.queue_id),
  );
  app.post(
    '/annotation_queues/:queue_id/items',
    {
      schema: paramsBodySchema(TAG, 'Annotation Queue Add Calls', {
        params: S.QueueParams,
        body: S.ItemsAddReq,
        ok: S.ItemsAddRes,
      }),
    },
    async (request) => queues.addItems(request.caller, request.params.queue_id, request.body),
  );
  app.post(
    '/annotation_queues/:queue_id/items/query',
    {
      schema: paramsBodySchema(TAG, 'Annotation Queue Items Query', {
        params: S.QueueParams,
        body: S.ItemsQueryReq,
        ok: S.ItemsQueryRes,
      }),
    },
    async (request) => queues.queryItems(request.caller, request.params.queue_id, request.body),
  );
  app.post(
    '/annotation_queues/:queue_id/items/:item_id/progress',
    {
      schema: paramsBodySchema(TAG, 'Annotator Queue Items Progress Update', {
        params: S.ItemParams,
        body: S.ProgressReq,
        ok: S.ItemRes,
      }),
    },
    async (request) => {
      const { queue_id, item_id } = request.params;
      return queues.setProgress(request.caller, queue_id, item_id, request.body);
    },
  );
}
