import type { Config } from '../../config/config.js';
import type { TraceStore } from '../../store/types.js';
import type { Trainer } from '../../training/trainer-port.js';
import type { ProjectAccess } from '../project-access.js';
import { BuiltinRunner } from './builtin-runner.js';
import { InferenceService } from './inference-service.js';
import { TrainingJobService } from './job-service.js';
import { ModelLookup } from './model-lookup.js';
import { TrainingModelService } from './model-service.js';
import { trainingSettings, type TrainingSettings } from './settings.js';
import type { BackgroundLog } from '../../domain/log.js';
import { TrainingSweeper } from './sweeper.js';
import { WorkerService } from './worker-service.js';
import { WorkerInferenceRouter } from './worker-inference.js';

/**
 * The background side of training on this node: the sweeper (always) and the built-in runner
 * (when a trainer is configured and the runner is enabled). Started once the app is ready,
 * stopped before the store closes.
 */
export class TrainingRuntime {
  #runners: BuiltinRunner[] = [];
  #sweeper: TrainingSweeper | null = null;

  constructor(
    private readonly store: TraceStore,
    private readonly settings: TrainingSettings,
    readonly trainer: Trainer | null,
  ) {}

  start(log: BackgroundLog): void {
    this.#sweeper = new TrainingSweeper(this.store.training, this.settings, log);
    this.#sweeper.start();
    if (this.trainer && this.settings.builtinRunner) {
      for (let i = 0; i < this.settings.builtinConcurrency; i += 1) {
        const runner = new BuiltinRunner(this.store.training, this.trainer, this.settings, log);
        this.#runners.push(runner);
        runner.start();
      }
    }
  }

  /** A round trip to the queue's tables (system check). */
  ping(): Promise<void> {
    return this.store.training.ping();
  }

  notify(): void {
    for (const runner of this.#runners) runner.notify();
  }

  /** Stops the loops (a running job fails with a shutdown message), then closes the trainer. */
  async stop(): Promise<void> {
    await Promise.all(this.#runners.map((runner) => runner.stop()));
    await this.#sweeper?.stop();
    this.#runners = [];
    this.#sweeper = null;
    await this.trainer?.close();
  }
}

export interface TrainingServices {
  settings: TrainingSettings;
  models: TrainingModelService;
  jobs: TrainingJobService;
  inference: InferenceService;
  workers: WorkerService;
  workerInference: WorkerInferenceRouter;
  runtime: TrainingRuntime;
}

export function createTrainingServices(
  store: TraceStore,
  access: ProjectAccess,
  config: Config,
  trainer: Trainer | null,
): TrainingServices {
  const settings = trainingSettings(config);
  const lookup = new ModelLookup(store.training, access, settings);
  const runtime = new TrainingRuntime(store, settings, trainer);
  const workerInference = new WorkerInferenceRouter(store.training, settings);
  return {
    settings,
    models: new TrainingModelService(store.training, access, lookup, settings),
    jobs: new TrainingJobService(store.training, access, lookup, () => runtime.notify()),
    inference: new InferenceService(
      store.training,
      access,
      trainer,
      settings.inferenceConcurrency,
      settings.inferenceQueueLimit,
      workerInference,
    ),
    workerInference,
    workers: new WorkerService(store.training, access, settings),
    runtime,
  };
}
