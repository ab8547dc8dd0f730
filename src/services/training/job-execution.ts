import { uuidv7 } from '../../domain/ids.js';
import { nowMicros } from '../../domain/time.js';
import type { LeasedJob, TrainingStore } from '../../store/training-types.js';
import {
  TrainingContentError,
  type Trainer,
  type TrainingJobInput,
  type TrainingProgress,
} from '../../training/trainer-port.js';
import type { RlJobInput, SftJobInput } from './job-service.js';
import { jobHistory } from './job-history.js';
import { resolveSftExamples, TrainingDataError } from './sft-data.js';
import type { BackgroundLog } from '../../domain/log.js';

/** Why a running job was aborted: its lease is gone (deleted model, expiry) or this node is shutting down. */
export class LeaseLost extends Error {}
export class Shutdown extends Error {}

export const SHUTDOWN_MESSAGE =
  'The training server shut down while the job was running. The job is not retried; submit it again.';

/** A deterministic seed per job, so a job is reproducible (trainer port). */
export function jobSeed(jobId: string): number {
  return Number.parseInt(jobId.replace(/-/g, '').slice(-8), 16) >>> 0;
}

/** The trainer's input for a leased job; TrainingDataError when SFT data cannot be read. */
export async function buildTrainerInput(store: TrainingStore, leased: LeasedJob): Promise<TrainingJobInput> {
  const { job } = leased;
  const parentCheckpoint =
    leased.parentCheckpointId === null
      ? null
      : await store.checkpointData(job.project_id, job.model_id, leased.parentCheckpointId);
  const base = {
    jobId: job.id,
    kind: job.kind,
    baseModel: job.base_model,
    parentStep: leased.parentStep,
    parentCheckpoint,
    seed: jobSeed(job.id),
  };
  if (job.kind === 'sft') {
    const input = JSON.parse(job.input) as SftJobInput;
    return {
      ...base,
      trajectoryGroups: [],
      experimentalConfig: input.experimental_config,
      sftExamples: resolveSftExamples(input.training_data_url),
      sftConfig: input.config,
    };
  }
  const input = JSON.parse(job.input) as RlJobInput;
  return { ...base, trajectoryGroups: input.trajectory_groups, experimentalConfig: input.experimental_config };
}

export interface ExecutionOptions {
  store: TrainingStore;
  trainer: Trainer;
  leaseSeconds: number;
  log: BackgroundLog;
  /** Aborted with a Shutdown reason when this node closes. */
  shutdown: AbortSignal;
}

/**
 * Runs one leased job to its end on this node: every progress event is stored under the job's
 * fencing token before the trainer goes on, the lease is heartbeated, and the outcome becomes
 * `training_ended` (with the new checkpoint) or `training_failed`. A refused write means the
 * lease is gone (model deleted, lease expired and swept): the trainer is aborted and nothing
 * more is written.
 */
export async function executeJob(leased: LeasedJob, o: ExecutionOptions): Promise<void> {
  const { job } = leased;
  const token = job.fencing_token;
  const controller = new AbortController();
  const onShutdown = (): void => controller.abort(new Shutdown('shutdown'));
  o.shutdown.addEventListener('abort', onShutdown, { once: true });
  // leased while the node began to shut down: the listener above will not fire
  if (o.shutdown.aborted) onShutdown();
  const leaseMicros = Math.round(o.leaseSeconds * 1e6);
  const heartbeat = setInterval(
    () => {
      o.store
        .heartbeat(job.project_id, job.id, token, nowMicros(), leaseMicros)
        .then((held) => {
          if (!held) controller.abort(new LeaseLost('lease lost'));
        })
        .catch((error: unknown) => o.log.warn({ err: error, job: job.id }, 'training heartbeat failed'));
    },
    Math.max(20, (o.leaseSeconds * 1000) / 3),
  );
  heartbeat.unref();
  const onProgress = async (progress: TrainingProgress): Promise<void> => {
    const data =
      progress.type === 'training_started' && progress.data.parent_step === undefined
        ? { ...progress.data, parent_step: leased.parentStep }
        : progress.data;
    const stored = await o.store.appendEvent(job.project_id, job.id, token, {
      id: uuidv7(),
      type: progress.type,
      data: JSON.stringify(data),
      created_at: nowMicros(),
    });
    if (!stored.ok) {
      controller.abort(new LeaseLost(stored.reason));
      throw new LeaseLost(`event refused: ${stored.reason}`);
    }
  };
  try {
    const input = await buildTrainerInput(o.store, leased);
    const outcome = await o.trainer.train(input, onProgress, controller.signal);
    // A job that finished is stored even when shutdown began meanwhile; a lost lease refuses it below.
    const done = await o.store.completeJob(job.project_id, job.id, token, {
      now: nowMicros(),
      eventId: uuidv7(),
      checkpointId: uuidv7(),
      checkpoint: outcome.checkpoint,
      metrics: outcome.metrics,
      numGradientSteps: outcome.numGradientSteps,
      history: await jobHistory(o.store, job),
    });
    if (!done.ok)
      o.log.info({ job: job.id, reason: done.reason }, 'training result discarded: the job is no longer held');
  } catch (error) {
    await failAfter(error, controller.signal, leased, o);
  } finally {
    clearInterval(heartbeat);
    o.shutdown.removeEventListener('abort', onShutdown);
  }
}

async function failAfter(error: unknown, signal: AbortSignal, leased: LeasedJob, o: ExecutionOptions): Promise<void> {
  const { job } = leased;
  const reason: unknown = signal.aborted ? signal.reason : error;
  if (reason instanceof LeaseLost) {
    o.log.info({ job: job.id }, 'training job aborted: its lease is gone');
    return;
  }
  let message: string;
  if (reason instanceof Shutdown) message = SHUTDOWN_MESSAGE;
  else if (error instanceof TrainingContentError || error instanceof TrainingDataError)
    message = error.message || 'The training data cannot be trained on';
  else {
    o.log.error({ err: error, job: job.id }, 'training job failed');
    message = `Training failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const failed = await o.store.failJob(job.project_id, job.id, job.fencing_token, message, nowMicros(), uuidv7());
  if (!failed.ok)
    o.log.info({ job: job.id, reason: failed.reason }, 'training failure not recorded: the job is no longer held');
}
