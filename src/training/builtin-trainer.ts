/**
 * The built-in trainer (docs/spec/training.md §6, §9, §10): a ~130k-weight byte-level transformer on tfjs,
 * run off the API's event loop in worker threads. A training job has a thread to itself (so an
 * aborted job is stopped by ending its thread, and jobs of different models can run side by side);
 * finished threads are kept for the next job (starting one costs ~1–3 s: tsx and tfjs load).
 * Completions share one long-lived thread that caches loaded checkpoints (LRU by checkpoint id).
 */
import type {
  ChatCompletionInput,
  CheckpointHandle,
  Trainer,
  TrainingJobInput,
  TrainingOutcome,
  TrainingProgress,
} from './trainer-port.js';
import type { WorkerOptions } from './worker/protocol.js';
import { WorkerHost } from './worker/worker-host.js';

export interface BuiltinTrainerOptions {
  /** tfjs backend to try first (default `wasm`; `cpu` is the fallback either way). */
  backend?: 'wasm' | 'cpu';
  /** Checkpoints kept loaded by the completion thread (default 4). */
  checkpointCacheSize?: number;
}

const BASE_NAME = 'builtin:byte-decoder';
const MAX_IDLE_TRAINING_THREADS = 1;

export class BuiltinTrainer implements Trainer {
  private readonly options: WorkerOptions;
  private readonly inference: WorkerHost;
  private readonly jobs = new Set<WorkerHost>();
  private readonly idle: WorkerHost[] = [];
  private backend: string | null = null;

  constructor(options: BuiltinTrainerOptions = {}) {
    this.options = { backend: options.backend ?? 'wasm', cacheSize: options.checkpointCacheSize ?? 4 };
    this.inference = new WorkerHost(this.options);
  }

  /** Starts the completion thread and resolves once tfjs is ready (the constructor starts nothing). */
  static async create(options: BuiltinTrainerOptions = {}): Promise<BuiltinTrainer> {
    const trainer = new BuiltinTrainer(options);
    trainer.backend = await trainer.inference.start();
    return trainer;
  }

  /** Constant, so every job records the same trainer; the backend is in `backendName` and in each job's `training_started.data.backend_wasm`. */
  readonly name = BASE_NAME;

  /** `wasm` or `cpu` once a thread has started, else null. */
  get backendName(): string | null {
    return this.backend;
  }

  async train(
    input: TrainingJobInput,
    onProgress: (progress: TrainingProgress) => Promise<void>,
    signal: AbortSignal,
  ): Promise<TrainingOutcome> {
    const host = this.idle.pop() ?? new WorkerHost(this.options);
    this.jobs.add(host);
    let reusable = false;
    try {
      this.backend = await host.start();
      const backendFlag = this.backend === 'wasm' ? 1 : 0;
      const report = (p: TrainingProgress) =>
        onProgress(
          p.type === 'training_started' ? { type: p.type, data: { ...p.data, backend_wasm: backendFlag } } : p,
        );
      const outcome = (await host.request(
        { type: 'train', input },
        { onProgress: report },
        signal,
        true,
      )) as TrainingOutcome;
      reusable = true;
      return outcome;
    } finally {
      this.jobs.delete(host);
      // Keep one finished thread warm; a failed or aborted job's thread is ended.
      if (reusable && this.idle.length < MAX_IDLE_TRAINING_THREADS) this.idle.push(host);
      else await host.terminate();
    }
  }

  async complete(
    checkpoint: CheckpointHandle,
    request: ChatCompletionInput,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    this.backend = await this.inference.start();
    const message = { type: 'complete' as const, checkpointId: checkpoint.id, request };
    return (await this.inference.request(message, { loadCheckpoint: () => checkpoint.load() }, signal)) as Record<
      string,
      unknown
    >;
  }

  async close(): Promise<void> {
    await Promise.all([...this.jobs, ...this.idle.splice(0)].map((h) => h.terminate()));
    await this.inference.terminate();
  }
}
