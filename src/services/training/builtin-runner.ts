import { LeaseLoop } from '../lease-loop.js';
import { nowMicros } from '../../domain/time.js';
import type { LeasedJob, LeaseFilter, TrainingStore } from '../../store/training-types.js';
import type { Trainer } from '../../training/trainer-port.js';
import { executeJob, Shutdown } from './job-execution.js';
import type { TrainingSettings } from './settings.js';
import type { BackgroundLog } from '../../domain/log.js';

/**
 * The built-in trainer's job loop, one per API node (docs/spec/training.md §6.1): it leases one job at a
 * time and runs it in the trainer (a worker thread, so the API stays responsive). It always takes
 * its own base model; other base models only when the fallback is enabled and no live external
 * worker advertised them recently.
 */
export class BuiltinRunner extends LeaseLoop<LeasedJob> {
  constructor(
    private readonly store: TrainingStore,
    private readonly trainer: Trainer,
    private readonly settings: TrainingSettings,
    private readonly log: BackgroundLog,
  ) {
    super('builtin');
  }

  /** Base models this runner may take right now. */
  async filter(): Promise<LeaseFilter> {
    const own = this.settings.builtinBaseModel;
    if (!this.settings.builtinFallback) return { include: [own], exclude: [] };
    const since = nowMicros() - Math.round(this.settings.workerTtlSeconds * 1e6);
    const served = await this.store.liveWorkerModels(since);
    return { include: null, exclude: served.filter((m) => m !== own) };
  }

  /** A running job is aborted and fails with a shutdown message. */
  protected shutdownReason(): Error {
    return new Shutdown('shutdown');
  }

  protected async lease(): Promise<LeasedJob | null> {
    try {
      return await this.store.leaseJob({
        owner: this.owner,
        trainer: this.trainer.name,
        now: nowMicros(),
        leaseMicros: Math.round(this.settings.leaseSeconds * 1e6),
        filter: await this.filter(),
      });
    } catch (error) {
      this.log.warn({ err: error }, 'training lease failed');
      return null;
    }
  }

  protected async execute(leased: LeasedJob): Promise<void> {
    await executeJob(leased, {
      store: this.store,
      trainer: this.trainer,
      leaseSeconds: this.settings.leaseSeconds,
      log: this.log,
      shutdown: this.shutdown.signal,
    });
  }
}
