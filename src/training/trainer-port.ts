/**
 * The boundary between the training service (store, queue, routes) and a trainer that turns
 * trajectory groups into a new checkpoint (docs/spec/training.md §6, §9, §10). The built-in trainer
 * (a byte-level decoder on tfjs, run in a worker thread) implements it; the service never
 * imports tfjs.
 */

/** One RL or SFT job as a trainer receives it; the service has already validated the body. */
export interface TrainingJobInput {
  jobId: string;
  kind: 'rl' | 'sft';
  baseModel: string;
  /** Step trained from (0 = the initial policy). */
  parentStep: number;
  /** Checkpoint bytes of the parent step; null for step 0 (the untrained initial policy). */
  parentCheckpoint: Uint8Array | null;
  /** RL: the request's `trajectory_groups`, as received. */
  trajectoryGroups: unknown[];
  /** RL: the request's `experimental_config` (raw; the trainer applies the defaults of §5.8). */
  experimentalConfig: Record<string, unknown> | null;
  /** SFT: one `{messages, tools?}` object per example (docs/spec/training.md §4.9), already resolved from the URL. */
  sftExamples?: unknown[];
  /** SFT: the request's `config` (`batch_size`, `learning_rate`). */
  sftConfig?: Record<string, unknown> | null;
  /** Seeds shuffling and initialisation so a job is reproducible. */
  seed: number;
}

/** `training_started` and `gradient_step` events; every value in `data` is a number (§6.2). */
export interface TrainingProgress {
  type: 'training_started' | 'gradient_step';
  data: Record<string, number>;
}

export interface TrainingOutcome {
  /** The new checkpoint (step = parent + 1), in the trainer's own serialisation. */
  checkpoint: Uint8Array;
  /** Averages of the gradient-step data (stored with the job and under `train/` on the checkpoint). */
  metrics: Record<string, number>;
  numGradientSteps: number;
}

/** A content-level problem (no trainable tokens when required, over the token cap, ...): the job fails with this message. */
export class TrainingContentError extends Error {}

/** An OpenAI-style chat completion request (docs/spec/training.md §4.10), as received after schema validation. */
export type ChatCompletionInput = Record<string, unknown> & { messages: unknown[] };

export interface CheckpointHandle {
  /** Stable id for caching; null = the initial policy (step 0). */
  id: string | null;
  load(): Promise<Uint8Array | null>;
}

export interface Trainer {
  /** Shown in job and model responses (`trainer`), e.g. `builtin:byte-decoder`. */
  readonly name: string;
  /**
   * Runs one job. `onProgress` is awaited before the trainer goes on, so the service persists each
   * event before the next one exists. Rejects with TrainingContentError for bad content, or with
   * an AbortError when `signal` fires (model deleted, lease lost, shutdown).
   */
  train(
    input: TrainingJobInput,
    onProgress: (progress: TrainingProgress) => Promise<void>,
    signal: AbortSignal,
  ): Promise<TrainingOutcome>;
  /** Samples from a checkpoint; the result is the response body minus `id`, `created`, `model`. */
  complete(
    checkpoint: CheckpointHandle,
    request: ChatCompletionInput,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
