import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SftTrainingJobCreate, TrainingJobCreate } from '../schemas/training-data.js';
import * as S from '../schemas/training.js';
import type { Services } from '../services/index.js';

const tags = ['Training'];

/** RL and SFT jobs, job read and events (training spec §4.6–§4.9). Creation answers `{id}` at once. */
export default async function trainingJobRoutes(
  app: FastifyInstance,
  { services }: { services: Services },
): Promise<void> {
  const { jobs } = services.training;
  type Id = Static<typeof S.JobIdParams>;

  app.post(
    '/v1/preview/training-jobs',
    { schema: { tags, summary: 'Create Training Job', body: TrainingJobCreate } },
    async (request) => jobs.createRl(request.caller, request.body as Parameters<typeof jobs.createRl>[1]),
  );
  app.post(
    '/v1/preview/sft-training-jobs',
    { schema: { tags, summary: 'Create SFT Training Job', body: SftTrainingJobCreate } },
    async (request) => jobs.createSft(request.caller, request.body as Parameters<typeof jobs.createSft>[1]),
  );
  app.get(
    '/v1/preview/training-jobs/:training_job_id',
    { schema: { tags, summary: 'Get Training Job', params: S.JobIdParams } },
    async (request) => jobs.get(request.caller, (request.params as Id).training_job_id),
  );
  app.get(
    '/v1/preview/training-jobs/:training_job_id/events',
    { schema: { tags, summary: 'List Training Job Events', params: S.JobIdParams, querystring: S.PageQuery } },
    async (request) =>
      jobs.events(request.caller, (request.params as Id).training_job_id, request.query as Static<typeof S.PageQuery>),
  );
}
