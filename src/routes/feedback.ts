import { EmptyRes } from '../schemas/common.js';
import * as C from '../schemas/costs.js';
import * as S from '../schemas/feedback.js';
import type { Services } from '../services/index.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** The feedback and costs APIs (docs/spec/objects.md §7, §8). */
export default async function feedbackRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { feedback, feedbackStats, costs } = services;

  const post = jsonPost(app, ['Feedback']);
  post('/feedback/create', { body: S.FeedbackCreateReq, ok: S.FeedbackCreateRes }, (caller, body) =>
    feedback.create(caller, body),
  );
  post('/feedback/batch/create', { body: S.FeedbackBatchCreateReq, ok: S.FeedbackBatchCreateRes }, (caller, body) =>
    feedback.batchCreate(caller, body),
  );
  post('/feedback/query', { body: S.FeedbackQueryReq, ok: S.FeedbackQueryRes }, (caller, body) =>
    feedback.query(caller, body),
  );
  post('/feedback/replace', { body: S.FeedbackReplaceReq, ok: S.FeedbackCreateRes }, (caller, body) =>
    feedback.replace(caller, body),
  );
  post('/feedback/purge', { body: S.PurgeReq, ok: EmptyRes }, (caller, body) => feedback.purge(caller, body));
  post(
    '/feedback/payload_schema',
    { body: S.FeedbackPayloadSchemaReq, ok: S.FeedbackPayloadSchemaRes },
    (caller, body) => feedbackStats.payloadSchema(caller, body),
  );
  // no response schema: a bucket's keys are the metrics the request names
  app.post('/feedback/stats', { schema: { tags: ['Feedback'], body: S.FeedbackStatsReq } }, (request) =>
    feedbackStats.stats(request.caller, request.body),
  );

  const postCost = jsonPost(app, ['Costs']);
  postCost('/cost/create', { body: C.CostCreateReq, ok: C.CostCreateRes }, (caller, body) =>
    costs.create(caller, body),
  );
  postCost('/cost/query', { body: C.CostQueryReq, ok: C.CostQueryRes }, (caller, body) => costs.query(caller, body));
  postCost('/cost/purge', { body: S.PurgeReq, ok: EmptyRes }, (caller, body) => costs.purge(caller, body));
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const feedbackArea = routeArea('feedback', feedbackRoutes, {
  'POST /feedback/create': 'write',
  'POST /feedback/batch/create': 'write',
  'POST /feedback/replace': 'write',
  'POST /feedback/purge': 'write',
  'POST /feedback/query': 'read',
  'POST /feedback/payload_schema': 'read',
  'POST /feedback/stats': 'read',
  'POST /cost/create': 'write',
  'POST /cost/purge': 'write',
  'POST /cost/query': 'read',
});
