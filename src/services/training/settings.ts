import type { Config } from '../../config/config.js';

/** The base model the built-in trainer always serves (its own small byte-level policy). */
export const BUILTIN_BASE_MODEL = 'heddle/byte-decoder';

/** What the training services take from the configuration (docs/spec/training.md §4–§6). */
export interface TrainingSettings {
  builtinBaseModel: string;
  /** Operator allow-list of base models (§4.1); null = any. */
  allowedBaseModels: string[] | null;
  queueTimeoutSeconds: number;
  leaseSeconds: number;
  sweepSeconds: number;
  /** The built-in trainer also takes other base models no live worker serves. */
  builtinFallback: boolean;
  /** A worker counts as live this long after its last lease request. */
  workerTtlSeconds: number;
  inferenceConcurrency: number;
  /** Completions that may wait for a slot before further ones get 429. */
  inferenceQueueLimit: number;
  /** Whether this node runs the built-in trainer's job loop. */
  builtinRunner: boolean;
  /** Job loops of the built-in runner on this node. */
  builtinConcurrency: number;
}

export function trainingSettings(config: Config): TrainingSettings {
  return {
    builtinBaseModel: BUILTIN_BASE_MODEL,
    allowedBaseModels: config.trainingBaseModels ?? null,
    queueTimeoutSeconds: config.trainingQueueTimeoutSeconds,
    leaseSeconds: config.trainingLeaseSeconds,
    sweepSeconds: config.trainingSweepSeconds,
    builtinFallback: config.trainingBuiltinFallback,
    workerTtlSeconds: config.trainingWorkerTtlSeconds,
    inferenceConcurrency: config.inferenceConcurrency,
    inferenceQueueLimit: config.inferenceQueueLimit,
    builtinRunner: config.trainingBuiltinRunner,
    builtinConcurrency: config.trainingBuiltinConcurrency,
  };
}
