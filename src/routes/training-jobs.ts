import { SftTrainingJobCreate, TrainingJobCreate } from '../schemas/training-data.js';
import * as S from '../schemas/training.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Training'];

/** RL and SFT jobs, job read and events (docs/spec/training.md §4.6–§4.9). Creation answers `{id}` at once. */
export default async function trainingJobRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { jobs } = services.training;

  app.post(
    '/v1/preview/training-jobs',
    { schema: { tags, summary: 'Create Training Job', body: TrainingJobCreate } },
    async (request) => jobs.createRl(request.caller, request.body),
  );
  app.post(
    '/v1/preview/sft-training-jobs',
    { schema: { tags, summary: 'Create SFT Training Job', body: SftTrainingJobCreate } },
    async (request) => jobs.createSft(request.caller, request.body),
  );
  app.get(
    '/v1/preview/training-jobs/:training_job_id',
    { schema: { tags, summary: 'Get Training Job', params: S.JobIdParams } },
    async (request) => jobs.get(request.caller, request.params.training_job_id),
  );
  app.get(
    '/v1/preview/training-jobs/:training_job_id/events',
    { schema: { tags, summary: 'List Training Job Events', params: S.JobIdParams, querystring: S.PageQuery } },
    async (request) => jobs.events(request.caller, request.params.training_job_id, request.query),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const trainingJobArea = routeArea('training-jobs', trainingJobRoutes, {
  'POST /v1/preview/training-jobs': 'write',
  'POST /v1/preview/sft-training-jobs': 'write',
  'GET /v1/preview/training-jobs/:training_job_id': 'read',
  'GET /v1/preview/training-jobs/:training_job_id/events': 'read',
});
