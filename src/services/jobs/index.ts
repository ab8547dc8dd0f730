import type { JobSettings } from '../../config/config.js';
import { nowMicros } from '../../domain/time.js';
import type { JobStore, NewBackgroundJob } from '../../store/job-types.js';
import type { BackgroundLog } from '../../domain/log.js';
import { JobRunner, type JobHandlers } from './job-runner.js';

export { errorText, type JobHandler, type JobHandlers } from './job-runner.js';

/** `{attempts}` is filled in by the store. */
const EXHAUSTED =
  'The job was interrupted {attempts} times (its node stopped or lost the database before the lease expired); it is not retried again.';

/**
 * Where this node queues background jobs: stores them, then wakes the node's idle runners. Built
 * before the runtime, so a service that queues jobs can also give the runtime a handler.
 */
export class JobQueue {
  #wakers: Array<() => void> = [];

  constructor(
    private readonly store: JobStore,
    readonly settings: JobSettings,
  ) {}

  /** Stores the jobs, then wakes this node's idle runners. */
  async enqueue(jobs: readonly Omit<NewBackgroundJob, 'max_attempts' | 'created_at'>[]): Promise<void> {
    const now = nowMicros();
    await this.store.enqueue(jobs.map((j) => ({ ...j, created_at: now, max_attempts: this.settings.maxAttempts })));
    this.wake();
  }

  /** Jobs were queued on this node by a store transaction of its own: wake the idle runners. */
  wake(): void {
    for (const wake of this.#wakers) wake();
  }

  /** `wake` calls `waker` (the runtime's runners). */
  onWake(waker: () => void): void {
    this.#wakers.push(waker);
  }
}

/**
 * The background job queue on this node (docs/architecture.md, "Background jobs"): the sweeper
 * (always; it re-queues jobs whose lease expired and fails those out of attempts) and
 * `concurrency` job loops. Started once the app is ready, stopped before the store closes.
 */
export class JobRuntime {
  #runners: JobRunner[] = [];
  #timer: NodeJS.Timeout | null = null;
  #sweeping: Promise<void> | null = null;
  #log: BackgroundLog | null = null;
  readonly settings: JobSettings;

  constructor(
    readonly queue: JobQueue,
    private readonly store: JobStore,
    private readonly handlers: JobHandlers,
  ) {
    this.settings = queue.settings;
    queue.onWake(() => {
      for (const runner of this.#runners) runner.notify();
    });
  }

  /** Stores the jobs, then wakes this node's idle runners. */
  enqueue(jobs: readonly Omit<NewBackgroundJob, 'max_attempts' | 'created_at'>[]): Promise<void> {
    return this.queue.enqueue(jobs);
  }

  /** The node's logger once started (handlers log their progress through it). */
  get log(): BackgroundLog | null {
    return this.#log;
  }

  /** Jobs were queued on this node by a store transaction of its own: wake the idle runners. */
  wake(): void {
    this.queue.wake();
  }

  start(log: BackgroundLog): void {
    this.#log = log;
    for (let i = 0; i < this.settings.concurrency; i += 1) {
      const runner = new JobRunner(this.store, this.handlers, this.settings, log);
      this.#runners.push(runner);
      runner.start();
    }
    this.#schedule();
  }

  /** One sweeper pass; the handlers of failed jobs finish what the jobs left. */
  async sweepOnce(): Promise<{ requeued: number; failed: number }> {
    const { requeued, failed } = await this.store.sweep(nowMicros(), EXHAUSTED);
    for (const job of failed) {
      try {
        await this.handlers[job.kind]?.failed?.(job, job.error_message ?? EXHAUSTED);
      } catch (error) {
        this.#log?.warn({ err: error, job_id: job.id }, 'background job failure hook failed');
      }
    }
    return { requeued: requeued.length, failed: failed.length };
  }

  #schedule(): void {
    this.#timer = setTimeout(
      () => {
        this.#sweeping = this.sweepOnce()
          .then((n) => {
            if (n.requeued + n.failed > 0) this.#log?.info(n, 'background job sweeper found expired leases');
          })
          .catch((error: unknown) => this.#log?.warn({ err: error }, 'background job sweep failed'))
          .finally(() => {
            this.#sweeping = null;
            if (this.#timer !== null) this.#schedule();
          });
      },
      Math.max(10, this.settings.sweepSeconds * 1000),
    );
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await Promise.all(this.#runners.map((runner) => runner.stop()));
    await this.#sweeping;
    this.#runners = [];
  }
}
