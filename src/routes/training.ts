import type { FastifyRequest } from 'fastify';
import { LogRequest } from '../schemas/training-data.js';
import * as S from '../schemas/training.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Training'];

/**
 * The ART client sends `Content-Type: application/json` on `DELETE /preview/models/{id}` with no
 * body at all (docs/art-client.md); this route takes no body, so the header is dropped instead of
 * failing as an empty JSON body.
 */
async function ignoreEmptyJsonBody(request: FastifyRequest): Promise<void> {
  const length = request.headers['content-length'];
  if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined)
    delete request.headers['content-type'];
}

/** Models, checkpoints and `/log` of the training API (docs/spec/training.md §4.1–§4.5, §4.12). */
export default async function trainingRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { models } = services.training;

  app.post('/v1/preview/models', { schema: { tags, summary: 'Create Model', body: S.ModelCreate } }, async (request) =>
    models.create(request.caller, request.body),
  );
  app.get(
    '/v1/preview/models',
    { schema: { tags, summary: 'List Models', querystring: S.ModelPageQuery } },
    async (request) => models.list(request.caller, request.query),
  );
  app.get(
    '/v1/preview/models/:model_id',
    { schema: { tags, summary: 'Get Model', params: S.ModelIdParams } },
    async (request) => models.get(request.caller, request.params.model_id),
  );
  app.delete(
    '/v1/preview/models/:model_id',
    { onRequest: ignoreEmptyJsonBody, schema: { tags, summary: 'Delete Model', params: S.ModelIdParams } },
    async (request) => models.delete(request.caller, request.params.model_id),
  );
  app.get(
    '/v1/preview/models/:model_id/checkpoints',
    { schema: { tags, summary: 'List Checkpoints', params: S.ModelIdParams, querystring: S.CheckpointPageQuery } },
    async (request) => models.listCheckpoints(request.caller, request.params.model_id, request.query),
  );
  app.get(
    '/v1/preview/models/:model_id/training-jobs',
    { schema: { tags, summary: 'List Training Jobs Of Model', params: S.ModelIdParams, querystring: S.PageQuery } },
    async (request) => models.listJobs(request.caller, request.params.model_id, request.query),
  );
  app.get(
    '/v1/preview/models/:model_id/history',
    { schema: { tags, summary: 'List Logged Metrics', params: S.ModelIdParams, querystring: S.PageQuery } },
    async (request) => models.listHistory(request.caller, request.params.model_id, request.query),
  );
  app.delete(
    '/v1/preview/models/:model_id/checkpoints',
    { schema: { tags, summary: 'Delete Checkpoints', params: S.ModelIdParams, body: S.DeleteCheckpointsRequest } },
    async (request) => models.deleteCheckpoints(request.caller, request.params.model_id, request.body.steps),
  );
  app.post(
    '/v1/preview/models/:model_id/log',
    { schema: { tags, summary: 'Log Trajectories', params: S.ModelIdParams, body: LogRequest } },
    async (request) => models.log(request.caller, request.params.model_id, request.body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const trainingArea = routeArea('training', trainingRoutes, {
  'POST /v1/preview/models': 'write',
  'GET /v1/preview/models': 'read',
  'GET /v1/preview/models/:model_id': 'read',
  'DELETE /v1/preview/models/:model_id': 'write',
  'GET /v1/preview/models/:model_id/checkpoints': 'read',
  'GET /v1/preview/models/:model_id/training-jobs': 'read',
  'GET /v1/preview/models/:model_id/history': 'read',
  'DELETE /v1/preview/models/:model_id/checkpoints': 'write',
  'POST /v1/preview/models/:model_id/log': 'write',
});
