import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/app-error.js';
import type { Services } from '../services/index.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

const tags = ['Training workers'];

/** The external worker protocol (docs/training-worker-protocol.md). */
const LeaseReq = Type.Object({
  worker_id: Type.String({ minLength: 1 }),
  base_models: Type.Array(Type.String()),
  lease_seconds: Type.Optional(Type.Number()),
  /** Where this worker answers chat completions for its base models' checkpoints, and the bearer token Heddle sends. */
  inference_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  inference_token: Type.Optional(Type.String({ minLength: 16, maxLength: 500 })),
});
const CheckpointParams = Type.Object({ model_id: Type.String(), step: Type.String({ pattern: '^\\d+$' }) });
const JobParams = Type.Object({ job_id: Type.String() });
const TokenQuery = Type.Object({ fencing_token: Type.String({ pattern: '^\\d+$' }) });
const HeartbeatReq = Type.Object({ fencing_token: Type.Integer(), lease_seconds: Type.Optional(Type.Number()) });
const EventReq = Type.Object({
  fencing_token: Type.Integer(),
  seq: Type.Integer({ minimum: 1 }),
  type: Type.Union([Type.Literal('training_started'), Type.Literal('gradient_step')]),
  // §6.2: every value is a number.
  data: Type.Record(Type.String(), Type.Number()),
});
const CompleteReq = Type.Object({
  fencing_token: Type.Integer(),
  checkpoint_base64: Type.String(),
  metrics: Type.Optional(Type.Record(Type.String(), Type.Number())),
  num_gradient_steps: Type.Integer({ minimum: 0 }),
});
const UploadQuery = Type.Object({
  fencing_token: Type.String({ pattern: '^\\d+$' }),
  num_gradient_steps: Type.String({ pattern: '^\\d+$' }),
});
/**
 * Our choice: a checkpoint upload may be this large. PostgreSQL's bytea holds at most 1 GB, and a
 * LoRA adapter of a 14B model at rank 64 is about 0.5 GB; the whole body is held in memory once.
 */
export const CHECKPOINT_UPLOAD_LIMIT_BYTES = 1_000_000_000;
const FailReq = Type.Object({ fencing_token: Type.Integer(), error_message: Type.String() });
const ReleaseReq = Type.Object({
  fencing_token: Type.Integer(),
  reason: Type.Optional(Type.String({ maxLength: 1000 })),
});

export default async function trainingWorkerRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { workers } = services.training;
  // raw checkpoint bytes, for this plugin's upload route only
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: CHECKPOINT_UPLOAD_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post('/v1/workers/lease', { schema: { tags, summary: 'Lease Training Job', body: LeaseReq } }, async (request) =>
    workers.lease(request.caller, request.body),
  );
  app.get(
    '/v1/workers/jobs/:job_id/parent-checkpoint',
    { schema: { tags, summary: 'Download Parent Checkpoint', params: JobParams, querystring: TokenQuery } },
    async (request, reply) => {
      const token = Number(request.query.fencing_token);
      const parent = await workers.parentCheckpoint(request.caller, request.params.job_id, token);
      reply.header('x-heddle-parent-step', String(parent.step));
      if (parent.checkpointId !== null) reply.header('x-heddle-checkpoint-id', parent.checkpointId);
      return reply.type('application/octet-stream').send(Buffer.from(parent.data));
    },
  );
  app.get(
    '/v1/workers/models/:model_id/checkpoints/:step',
    { schema: { tags, summary: 'Download Checkpoint', params: CheckpointParams } },
    async (request, reply) => {
      const { model_id: modelId, step } = request.params;
      const found = await workers.checkpoint(request.caller, modelId, Number(step));
      reply.header('x-heddle-checkpoint-id', found.checkpointId);
      return reply.type('application/octet-stream').send(Buffer.from(found.data));
    },
  );
  app.post(
    '/v1/workers/jobs/:job_id/heartbeat',
    { schema: { tags, summary: 'Heartbeat', params: JobParams, body: HeartbeatReq } },
    async (request) => workers.heartbeat(request.caller, request.params.job_id, request.body),
  );
  app.post(
    '/v1/workers/jobs/:job_id/events',
    { schema: { tags, summary: 'Post Training Event', params: JobParams, body: EventReq } },
    async (request) => workers.event(request.caller, request.params.job_id, request.body),
  );
  app.post(
    '/v1/workers/jobs/:job_id/complete',
    { schema: { tags, summary: 'Complete Training Job', params: JobParams, body: CompleteReq } },
    async (request) => workers.complete(request.caller, request.params.job_id, request.body),
  );
  app.post(
    '/v1/workers/jobs/:job_id/checkpoint',
    {
      bodyLimit: CHECKPOINT_UPLOAD_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Complete Training Job With A Binary Checkpoint',
        params: JobParams,
        querystring: UploadQuery,
        body: { content: { 'application/octet-stream': { schema: {} } } },
      },
    },
    async (request) => {
      const query = {
        fencing_token: Number(request.query.fencing_token),
        num_gradient_steps: Number(request.query.num_gradient_steps),
      };
      const raw: unknown = request.body;
      // another content type's parser (JSON) ran: the checkpoint must be the raw body
      if (!Buffer.isBuffer(raw))
        throw new AppError(415, `Unsupported content type: ${request.headers['content-type'] ?? '(none)'}`);
      const metrics = request.headers['x-heddle-metrics'];
      return workers.completeUpload(
        request.caller,
        request.params.job_id,
        query,
        raw,
        typeof metrics === 'string' ? metrics : undefined,
      );
    },
  );
  app.post(
    '/v1/workers/jobs/:job_id/release',
    { schema: { tags, summary: 'Hand Back Training Job', params: JobParams, body: ReleaseReq } },
    async (request) => workers.release(request.caller, request.params.job_id, request.body),
  );
  app.post(
    '/v1/workers/jobs/:job_id/fail',
    { schema: { tags, summary: 'Fail Training Job', params: JobParams, body: FailReq } },
    async (request) => workers.fail(request.caller, request.params.job_id, request.body),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const trainingWorkerArea = routeArea('training-workers', trainingWorkerRoutes, {
  'POST /v1/workers/lease': 'write',
  // only the worker holding the job's lease asks for it, and leasing is a write
  'GET /v1/workers/jobs/:job_id/parent-checkpoint': 'write',
  // a worker asked to serve a step it does not hold downloads it: model weights, so write like the rest
  'GET /v1/workers/models/:model_id/checkpoints/:step': 'write',
  'POST /v1/workers/jobs/:job_id/heartbeat': 'write',
  'POST /v1/workers/jobs/:job_id/events': 'write',
  'POST /v1/workers/jobs/:job_id/complete': 'write',
  'POST /v1/workers/jobs/:job_id/checkpoint': 'write',
  'POST /v1/workers/jobs/:job_id/fail': 'write',
  'POST /v1/workers/jobs/:job_id/release': 'write',
});
