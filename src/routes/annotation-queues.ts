import * as S from '../schemas/annotation-queues.js';
import type { Services } from '../services/index.js';
import { sendJsonl } from './jsonl.js';
import { jsonPost, paramsRoutes, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Annotation Queues'];

/** Annotation queues, their items and review progress (docs/spec/otel-service-queues.md §D). */
export default async function annotationQueueRoutes(
  app: RouteApp,
  { services }: { services: Services },
): Promise<void> {
  const { annotationQueues: queues } = services;
  const post = jsonPost(app, tags);
  post(
    '/annotation_queues',
    { summary: 'Annotation Queue Create', body: S.QueueCreateReq, ok: S.QueueCreateRes },
    (caller, body) => queues.create(caller, body),
  );
  app.post(
    '/annotation_queues/query',
    { schema: { tags, summary: 'Annotation Queues Query Stream', body: S.QueueQueryReq } },
    async (request, reply) => sendJsonl(reply, queues.query(request.caller, request.body)),
  );
  post(
    '/annotation_queues/stats',
    { summary: 'Annotation Queues Stats', body: S.QueueStatsReq, ok: S.QueueStatsRes },
    (caller, body) => queues.stats(caller, body),
  );

  const route = paramsRoutes(app, tags);
  const queue = { params: S.QueueParams, ok: S.QueueRes };
  route.withQuery(
    'GET',
    '/annotation_queues/:queue_id',
    { summary: 'Annotation Queue Read', ...queue, querystring: S.ProjectQuery },
    (caller, params, query) => queues.read(caller, query.project_id, params.queue_id),
  );
  route.withBody(
    'PUT',
    '/annotation_queues/:queue_id',
    { summary: 'Annotation Queue Update', ...queue, body: S.QueueUpdateReq },
    (caller, params, body) => queues.update(caller, params.queue_id, body),
  );
  route.withQuery(
    'DELETE',
    '/annotation_queues/:queue_id',
    { summary: 'Annotation Queue Delete', ...queue, querystring: S.ProjectQuery },
    (caller, params, query) => queues.delete(caller, query.project_id, params.queue_id),
  );
  route.withBody(
    'POST',
    '/annotation_queues/:queue_id/items',
    { summary: 'Annotation Queue Add Calls', params: S.QueueParams, body: S.ItemsAddReq, ok: S.ItemsAddRes },
    (caller, params, body) => queues.addItems(caller, params.queue_id, body),
  );
  route.withBody(
    'POST',
    '/annotation_queues/:queue_id/items/query',
    { summary: 'Annotation Queue Items Query', params: S.QueueParams, body: S.ItemsQueryReq, ok: S.ItemsQueryRes },
    (caller, params, body) => queues.queryItems(caller, params.queue_id, body),
  );
  route.withBody(
    'POST',
    '/annotation_queues/:queue_id/items/:item_id/progress',
    { summary: 'Annotator Queue Items Progress Update', params: S.ItemParams, body: S.ProgressReq, ok: S.ItemRes },
    (caller, params, body) => queues.setProgress(caller, params.queue_id, params.item_id, body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const annotationQueueArea = routeArea('annotation-queues', annotationQueueRoutes, {
  'POST /annotation_queues': 'write',
  'PUT /annotation_queues/:queue_id': 'write',
  'DELETE /annotation_queues/:queue_id': 'write',
  'POST /annotation_queues/:queue_id/items': 'write',
  'POST /annotation_queues/:queue_id/items/:item_id/progress': 'write',
  'POST /annotation_queues/query': 'read',
  'POST /annotation_queues/stats': 'read',
  'GET /annotation_queues/:queue_id': 'read',
  'POST /annotation_queues/:queue_id/items/query': 'read',
});
