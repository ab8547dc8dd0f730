import { randomBytes } from 'node:crypto';
import { IdleWait } from '../idle-wait.js';
import { nowMicros } from '../../domain/time.js';
import type { LeaseFilter, TrainingStore } from '../../store/training-types.js';
import type { Trainer } from '../../training/trainer-port.js';
import { executeJob, Shutdown } from './job-execution.js';
import type { TrainingSettings } from './settings.js';
import type { TrainingLog } from './sweeper.js';

/** How long an idle runner waits before looking at the queue again (a new job on this node wakes it at once). */
const IDLE_POLL_MS = 1000;

/**
 * The built-in trainer's job loop, one per API node (docs/spec/training.md §6.1): it leases one job at a
 * time and runs it in the trainer (a worker thread, so the API stays responsive). It always takes
 * its own base model; other base models only when the fallback is enabled and no live external
 * worker advertised them recently.
 */
export class BuiltinRunner {
  readonly owner = `builtin-${randomBytes(6).toString('hex')}`;
  readonly #shutdown = new AbortController();
  readonly #idleWait = new IdleWait(IDLE_POLL_MS, this.#shutdown.signal);
  #loop: Promise<void> | null = null;

  constructor(
    private readonly store: TrainingStore,
    private readonly trainer: Trainer,
    private readonly settings: TrainingSettings,
    private readonly log: TrainingLog,
  ) {}

  /** Base models this runner may take right now. */
  async filter(): Promise<LeaseFilter> {
    const own = this.settings.builtinBaseModel;
    if (!this.settings.builtinFallback) return { include: [own], exclude: [] };
    const since = nowMicros() - Math.round(this.settings.workerTtlSeconds * 1e6);
    const served = await this.store.liveWorkerModels(since);
    return { include: null, exclude: served.filter((m) => m !== own) };
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** A job was queued on this node: look now instead of at the next poll. */
  notify(): void {
    this.#idleWait.notify();
  }

  /** Stops leasing; a running job is aborted and fails with a shutdown message. */
  async stop(): Promise<void> {
    this.#shutdown.abort(new Shutdown('shutdown'));
    // the loop may be between a lease and its idle wait: that wait must not begin
    this.notify();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#shutdown.signal;
    while (!signal.aborted) {
      this.#idleWait.reset();
      let leased = null;
      try {
        leased = await this.store.leaseJob({
          owner: this.owner,
          trainer: this.trainer.name,
          now: nowMicros(),
          leaseMicros: Math.round(this.settings.leaseSeconds * 1e6),
          filter: await this.filter(),
        });
      } catch (error) {
        this.log.warn({ err: error }, 'training lease failed');
      }
      if (leased === null) {
        await this.#idleWait.wait();
        continue;
      }
      await executeJob(leased, {
        store: this.store,
        trainer: this.trainer,
        leaseSeconds: this.settings.leaseSeconds,
        log: this.log,
        shutdown: signal,
      });
    }
  }
}
