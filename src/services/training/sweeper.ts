import { uuidv7 } from '../../domain/ids.js';
import { nowMicros } from '../../domain/time.js';
import type { TrainingStore } from '../../store/training-types.js';
import type { TrainingSettings } from './settings.js';
import type { BackgroundLog } from '../../domain/log.js';

/**
 * The sweeper every API node runs (docs/spec/training.md §6.3: a client must never poll forever). It
 * fails running jobs whose lease expired and queued jobs no trainer took within the queue
 * timeout (only the head of a model's queue waits for a trainer; the store's sweep says how). Our choice: an expired job is not re-queued, because the events its first holder
 * emitted cannot be retracted; it fails with a message that says so. The store re-checks each
 * job under its row lock, so several nodes may sweep at once.
 */
export class TrainingSweeper {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly store: TrainingStore,
    private readonly settings: TrainingSettings,
    private readonly log: BackgroundLog,
  ) {}

  messages(): { leaseExpired: string; queueTimeout: string } {
    const fallback = this.settings.builtinFallback ? '' : ' (the built-in trainer fallback is disabled)';
    return {
      leaseExpired:
        'The trainer stopped responding: its lease expired before the job finished. The job is not retried; submit it again.',
      queueTimeout: `No trainer took the job within ${this.settings.queueTimeoutSeconds} s: no live worker serves base model {base_model}${fallback}`,
    };
  }

  /** One pass; returns how many jobs it failed. */
  async sweepOnce(): Promise<number> {
    const now = nowMicros();
    return this.store.sweep(now, now - Math.round(this.settings.queueTimeoutSeconds * 1e6), this.messages(), uuidv7);
  }

  start(): void {
    const tick = (): void => {
      this.#running = this.sweepOnce()
        .then((n) => {
          if (n > 0) this.log.info({ failed: n }, 'training sweeper failed stale jobs');
        })
        .catch((error: unknown) => this.log.warn({ err: error }, 'training sweep failed'))
        .finally(() => {
          this.#running = null;
          if (this.#timer !== null) this.#schedule(tick);
        });
    };
    this.#schedule(tick);
  }

  #schedule(tick: () => void): void {
    this.#timer = setTimeout(tick, Math.max(10, this.settings.sweepSeconds * 1000));
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
