import { EmptyRes } from '../schemas/common.js';
import * as C from '../schemas/costs.js';
import * as S from '../schemas/feedback.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';

/** The feedback and costs APIs (docs/spec/objects.md §7, §8). */
export default async function feedbackRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { feedback, feedbackStats, costs } = services;
  const tags = ['Feedback'];

  app.post(
    '/feedback/create',
    { schema: { tags, body: S.FeedbackCreateReq, response: { 200: S.FeedbackCreateRes } } },
    (request) => feedback.create(request.caller, request.body),
  );
  app.post(
    '/feedback/batch/create',
    { schema: { tags, body: S.FeedbackBatchCreateReq, response: { 200: S.FeedbackBatchCreateRes } } },
    (request) => feedback.batchCreate(request.caller, request.body),
  );
  app.post(
    '/feedback/query',
    { schema: { tags, body: S.FeedbackQueryReq, response: { 200: S.FeedbackQueryRes } } },
    (request) => feedback.query(request.caller, request.body),
  );
  app.post(
    '/feedback/replace',
    { schema: { tags, body: S.FeedbackReplaceReq, response: { 200: S.FeedbackCreateRes } } },
    (request) => feedback.replace(request.caller, request.body),
  );
  app.post('/feedback/purge', { schema: { tags, body: S.PurgeReq, response: { 200: EmptyRes } } }, (request) =>
    feedback.purge(request.caller, request.body),
  );
  app.post(
    '/feedback/payload_schema',
    { schema: { tags, body: S.FeedbackPayloadSchemaReq, response: { 200: S.FeedbackPayloadSchemaRes } } },
    (request) => feedbackStats.payloadSchema(request.caller, request.body),
  );
  app.post('/feedback/stats', { schema: { tags, body: S.FeedbackStatsReq } }, (request) =>
    feedbackStats.stats(request.caller, request.body),
  );

  const costTags = ['Costs'];
  app.post(
    '/cost/create',
    { schema: { tags: costTags, body: C.CostCreateReq, response: { 200: C.CostCreateRes } } },
    (request) => costs.create(request.caller, request.body),
  );
  app.post(
    '/cost/query',
    { schema: { tags: costTags, body: C.CostQueryReq, response: { 200: C.CostQueryRes } } },
    (request) => costs.query(request.caller, request.body),
  );
  app.post('/cost/purge', { schema: { tags: costTags, body: S.PurgeReq, response: { 200: EmptyRes } } }, (request) =>
    costs.purge(request.caller, request.body),
  );
}
