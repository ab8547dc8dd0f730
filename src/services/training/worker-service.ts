import { AppError, ConflictError, InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { uuidv7 } from '../../domain/ids.js';
import { formatMicros, nowMicros } from '../../domain/time.js';
import type {
  EventType,
  TrainingJobRow,
  TrainingStore,
  WorkerInference,
  WriteOutcome,
} from '../../store/training-types.js';
import type { Caller } from '../auth-service.js';
import { writableEntities, type ProjectAccess } from '../project-access.js';
import { buildTrainerInput } from './job-execution.js';
import { jobHistory } from './job-history.js';
import { TrainingDataError } from './sft-data.js';
import type { TrainingSettings } from './settings.js';

/** The worker protocol's answer when a write is refused (docs/training-worker-protocol.md). */
function refused(outcome: WriteOutcome<unknown> & { ok: false }): AppError {
  switch (outcome.reason) {
    case 'not_found':
      return new NotFoundError('Training job not found');
    case 'finished':
      return new ConflictError('The job has already finished');
    case 'out_of_order':
      return new ConflictError(
        'Event out of order: training_started must come first and once, and seq must be the next number',
      );
    default:
      return new ConflictError('Stale fencing token: the lease is held by someone else or has expired');
  }
}

export interface LeaseBody {
  worker_id: string;
  base_models: string[];
  lease_seconds?: number;
  inference_url?: string;
  inference_token?: string;
}

/** The inference endpoint a lease advertises (docs/training-worker-protocol.md, "Inference"); 400 when malformed. */
function inferenceEndpoint(body: LeaseBody): WorkerInference | null {
  if (body.inference_url === undefined) return null;
  let url: URL;
  try {
    url = new URL(body.inference_url);
  } catch {
    throw new InvalidRequestError(`inference_url is not a URL: ${body.inference_url}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidRequestError('inference_url must be an http or https URL');
  if (!body.inference_token) throw new InvalidRequestError('inference_url needs an inference_token');
  return { url: body.inference_url, token: body.inference_token };
}

/** The `x-heddle-metrics` header: a JSON object of finite numbers (spec §6.2), or absent. */
function parseMetrics(header: string | undefined): Record<string, number> {
  if (header === undefined || header === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw new InvalidRequestError('x-heddle-metrics is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidRequestError('x-heddle-metrics must be a JSON object');
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new InvalidRequestError(`x-heddle-metrics: ${k} is not a finite number`);
    out[k] = v;
  }
  return out;
}

/**
 * External trainers (GPU workers) over HTTP: lease a job for the base models they serve, download
 * the parent checkpoint, heartbeat, post progress events, then upload the new checkpoint or report
 * a failure. Every write carries the lease's fencing token; a stale one is a 409. A key reaches
 * the jobs of its own entities; an admin key reaches every job.
 */
export class WorkerService {
  constructor(
    private readonly store: TrainingStore,
    private readonly access: ProjectAccess,
    private readonly settings: TrainingSettings,
  ) {}

  async lease(caller: Caller, body: LeaseBody): Promise<{ job: Record<string, unknown> | null }> {
    const now = nowMicros();
    await this.store.recordWorker(body.worker_id, body.base_models, now, inferenceEndpoint(body));
    const leaseSeconds = Math.min(600, Math.max(1, body.lease_seconds ?? this.settings.leaseSeconds));
    const leased = await this.store.leaseJob({
      owner: `worker:${body.worker_id}`,
      trainer: `worker:${body.worker_id}`,
      now,
      leaseMicros: Math.round(leaseSeconds * 1e6),
      // a viewer of an entity takes none of its jobs: a worker writes the job's results
      filter: { include: body.base_models, exclude: [], entities: caller.isAdmin ? null : writableEntities(caller) },
    });
    if (!leased) return { job: null };
    const { job } = leased;
    try {
      const input = await buildTrainerInput(this.store, { ...leased, parentCheckpointId: null });
      return {
        job: {
          id: job.id,
          model_id: job.model_id,
          kind: job.kind,
          base_model: job.base_model,
          fencing_token: job.fencing_token,
          lease_seconds: leaseSeconds,
          lease_expires_at: formatMicros(job.lease_expires_at ?? now),
          parent_step: leased.parentStep,
          parent_checkpoint_id: leased.parentCheckpointId,
          seed: input.seed,
          trajectory_groups: input.trajectoryGroups,
          experimental_config: input.experimentalConfig,
          sft_examples: input.sftExamples ?? null,
          sft_config: input.sftConfig ?? null,
        },
      };
    } catch (error) {
      if (!(error instanceof TrainingDataError)) throw error;
      await this.store.failJob(job.project_id, job.id, job.fencing_token, error.message, nowMicros(), uuidv7());
      return { job: null };
    }
  }

  /** The job for a worker route; 404 unknown, 403 another entity's; 409 unless running under `token`. */
  async #held(caller: Caller, jobId: string, token: number): Promise<TrainingJobRow> {
    const key = jobId.toLowerCase();
    const where = await this.store.resolveId(key);
    if (!where || where.kind !== 'job') throw new NotFoundError('Training job not found');
    await this.access.assertCanWrite(caller, where.project_id);
    const job = await this.store.getJob(where.project_id, key);
    if (!job) throw new NotFoundError('Training job not found');
    if (job.status === 'succeeded' || job.status === 'failed') throw refused({ ok: false, reason: 'finished' });
    if (job.status !== 'running' || job.fencing_token !== token) throw refused({ ok: false, reason: 'stale' });
    return job;
  }

  /** The parent checkpoint's bytes (empty for step 0, the initial policy). */
  async parentCheckpoint(
    caller: Caller,
    jobId: string,
    token: number,
  ): Promise<{ step: number; checkpointId: string | null; data: Uint8Array }> {
    const job = await this.#held(caller, jobId, token);
    const step = job.parent_step ?? 0;
    if (step === 0) return { step, checkpointId: null, data: new Uint8Array() };
    const checkpoint = await this.store.getCheckpoint(job.project_id, job.model_id, step);
    const data = checkpoint ? await this.store.checkpointData(job.project_id, job.model_id, checkpoint.id) : null;
    if (!checkpoint || data === null) throw new NotFoundError(`The parent checkpoint (step ${step}) was deleted`);
    return { step, checkpointId: checkpoint.id, data };
  }

  /**
   * A stored checkpoint of a model, for a worker asked to serve a step it does not hold. Needs
   * write access to the model's project, like every worker route (its bytes are model weights).
   */
  async checkpoint(caller: Caller, modelId: string, step: number): Promise<{ checkpointId: string; data: Uint8Array }> {
    const key = modelId.toLowerCase();
    const where = await this.store.resolveId(key);
    if (!where || where.kind !== 'model') throw new NotFoundError('Model not found');
    await this.access.assertCanWrite(caller, where.project_id);
    const checkpoint = await this.store.getCheckpoint(where.project_id, key, step);
    const data = checkpoint ? await this.store.checkpointData(where.project_id, key, checkpoint.id) : null;
    if (!checkpoint || data === null) throw new NotFoundError(`Checkpoint step ${step} not found`);
    return { checkpointId: checkpoint.id, data };
  }

  async heartbeat(
    caller: Caller,
    jobId: string,
    body: { fencing_token: number; lease_seconds?: number },
  ): Promise<{ lease_expires_at: string }> {
    const job = await this.#held(caller, jobId, body.fencing_token);
    const seconds = Math.min(600, Math.max(1, body.lease_seconds ?? this.settings.leaseSeconds));
    const now = nowMicros();
    if (!(await this.store.heartbeat(job.project_id, job.id, body.fencing_token, now, Math.round(seconds * 1e6)))) {
      // the job changed since it was read (finished by a deletion or the sweeper, or re-leased): say which
      await this.#held(caller, jobId, body.fencing_token);
      throw refused({ ok: false, reason: 'stale' });
    }
    // a worker busy with a long job sends no lease requests: its heartbeats keep it (and its endpoint) live
    if (job.trainer?.startsWith('worker:')) await this.store.touchWorker(job.trainer.slice('worker:'.length), now);
    return { lease_expires_at: formatMicros(now + Math.round(seconds * 1e6)) };
  }

  /** Appends a progress event; a retry of a stored `seq` answers the stored event (idempotent). */
  async event(
    caller: Caller,
    jobId: string,
    body: { fencing_token: number; seq: number; type: EventType; data: Record<string, number> },
  ): Promise<{ id: string; seq: number }> {
    const key = jobId.toLowerCase();
    const where = await this.store.resolveId(key);
    if (!where || where.kind !== 'job') throw new NotFoundError('Training job not found');
    await this.access.assertCanWrite(caller, where.project_id);
    const outcome = await this.store.appendEvent(where.project_id, key, body.fencing_token, {
      id: uuidv7(),
      seq: body.seq,
      type: body.type,
      data: JSON.stringify(body.data),
      created_at: nowMicros(),
    });
    if (!outcome.ok) throw refused(outcome);
    return { id: outcome.value.id, seq: outcome.value.seq };
  }

  async complete(
    caller: Caller,
    jobId: string,
    body: {
      fencing_token: number;
      checkpoint_base64: string;
      metrics?: Record<string, number>;
      num_gradient_steps: number;
    },
  ): Promise<{ step: number; checkpoint_id: string }> {
    return this.completeWith(caller, jobId, {
      fencing_token: body.fencing_token,
      checkpoint: Buffer.from(body.checkpoint_base64, 'base64'),
      metrics: body.metrics ?? {},
      num_gradient_steps: body.num_gradient_steps,
    });
  }

  /**
   * Completes a job with the checkpoint's raw bytes (the binary upload route, for adapters too large
   * for base64 inside a JSON body); `metricsHeader` is the JSON object of the `x-heddle-metrics` header.
   */
  async completeUpload(
    caller: Caller,
    jobId: string,
    query: { fencing_token: number; num_gradient_steps: number },
    checkpoint: Uint8Array,
    metricsHeader: string | undefined,
  ): Promise<{ step: number; checkpoint_id: string }> {
    return this.completeWith(caller, jobId, { ...query, checkpoint, metrics: parseMetrics(metricsHeader) });
  }

  async completeWith(
    caller: Caller,
    jobId: string,
    body: {
      fencing_token: number;
      checkpoint: Uint8Array;
      metrics: Record<string, number>;
      num_gradient_steps: number;
    },
  ): Promise<{ step: number; checkpoint_id: string }> {
    const job = await this.#held(caller, jobId, body.fencing_token);
    const checkpointId = uuidv7();
    const outcome = await this.store.completeJob(job.project_id, job.id, body.fencing_token, {
      now: nowMicros(),
      eventId: uuidv7(),
      checkpointId,
      checkpoint: body.checkpoint,
      metrics: body.metrics,
      numGradientSteps: body.num_gradient_steps,
      history: await jobHistory(this.store, job),
    });
    if (!outcome.ok) throw refused(outcome);
    return { step: outcome.value.step, checkpoint_id: checkpointId };
  }

  /**
   * A stopping worker hands its job back instead of leaving it to lease expiry: queued again for
   * the next lease when it published no event yet, else failed at once with a message saying so.
   */
  async release(
    caller: Caller,
    jobId: string,
    body: { fencing_token: number; reason?: string },
  ): Promise<{ status: 'queued' | 'failed' }> {
    const job = await this.#held(caller, jobId, body.fencing_token);
    const why = body.reason?.trim() ? ` (${body.reason.trim()})` : '';
    const message = `The trainer stopped while the job was running${why}. The job is not retried; submit it again.`;
    const outcome = await this.store.releaseJob(
      job.project_id,
      job.id,
      body.fencing_token,
      message,
      nowMicros(),
      uuidv7(),
    );
    if (!outcome.ok) throw refused(outcome);
    return { status: outcome.value.requeued ? 'queued' : 'failed' };
  }

  async fail(
    caller: Caller,
    jobId: string,
    body: { fencing_token: number; error_message: string },
  ): Promise<Record<string, never>> {
    const job = await this.#held(caller, jobId, body.fencing_token);
    const message =
      body.error_message.trim() === '' ? 'The external trainer failed without a message' : body.error_message;
    const outcome = await this.store.failJob(
      job.project_id,
      job.id,
      body.fencing_token,
      message,
      nowMicros(),
      uuidv7(),
    );
    if (!outcome.ok) throw refused(outcome);
    return {};
  }
}
