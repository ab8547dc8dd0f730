import type { TraceStore } from '../../store/types.js';
import type { TrainingLog } from '../training/sweeper.js';

/** How the indexer paces itself. */
export interface TextIndexerOptions {
  /** How long it waits before looking again once nothing is left to index. */
  idleMs: number;
  /**
   * The share of time it takes while the store is busy with writes: after a step of t ms it waits
   * t × (1 − share) / share. Idle, the next step follows at once.
   */
  busyShare: number;
  /**
   * Busy means writes were waiting (the SQLite writer's queue, the PostgreSQL call writer's) before
   * or after a step, or at any step of the last `busyForMs`: between two requests of a steady
   * ingest the queue is empty for a moment.
   */
  busyForMs: number;
}

/** How often progress goes to the log while the indexer has work. */
const LOG_EVERY_MS = 10_000;

const DEFAULTS: TextIndexerOptions = { idleMs: 1_000, busyShare: 0.1, busyForMs: 1_000 };

/** What the steps since the last report did: calls indexed, priced (cost entries), named (trace-name fill). */
interface StepCounts {
  calls: number;
  priced: number;
  named: number;
}

/**
 * The background indexer of the substring index and of `call_values` (docs/query-performance.md
 * "Substrings", "Equality on an input field"): runs on every node, step after step
 * (store.callText.step: one short transaction over one project's calls not indexed yet), so
 * ingest never writes these indexes itself. Under sustained ingest it still takes a
 * bounded share of the writer, so it cannot fall behind for ever; idle, it catches up at full speed.
 * Its position is in the database (`call_text_marks`): a restart continues where it stopped, and
 * a store upgraded with calls is indexed the same way from the start, with progress in the log.
 */
export class CallTextIndexer {
  readonly #options: TextIndexerOptions;
  #log: TrainingLog | null = null;
  #stopped = true;
  #running: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(
    private readonly store: Pick<TraceStore, 'callText' | 'load'>,
    options: Partial<TextIndexerOptions> = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
  }

  start(log: TrainingLog): void {
    if (!this.#stopped) return;
    this.#log = log;
    this.#stopped = false;
    this.#running = this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
    this.#running = null;
  }

  async #loop(): Promise<void> {
    // calls indexed, calls priced for the cost entries (migration 024), calls whose trace-name
    // entries the fill wrote (migration 025)
    let calls = 0;
    let priced = 0;
    let named = 0;
    let started = 0;
    let lastLog = 0;
    let lastBusy = -Infinity;
    const { busyShare, busyForMs } = this.#options;
    const pending = (): boolean => this.store.load().pendingWrites > 0;
    while (!this.#stopped) {
      const t0 = performance.now();
      if (pending()) lastBusy = t0;
      let step;
      try {
        step = await this.store.callText.step();
      } catch (error) {
        if (this.#stopped) return;
        this.#log?.warn({ err: error }, 'call text index: step failed; $contains scans where it is behind');
        await this.#sleep(this.#options.idleMs * 5);
        continue;
      }
      const now = performance.now();
      if (step.project === null) {
        if (calls + priced + named > 0)
          this.#report('call text index: caught up', { calls, priced, named }, started, now);
        calls = priced = named = 0;
        await this.#sleep(this.#options.idleMs);
        continue;
      }
      if (calls + priced + named === 0) started = lastLog = t0;
      if (step.cost) priced += step.calls;
      else if (step.traceNames) named += step.calls;
      else calls += step.calls;
      if (now - lastLog >= LOG_EVERY_MS) {
        lastLog = now;
        this.#report('call text index: progress', { calls, priced, named }, started, now, step.project);
      }
      if (pending()) lastBusy = now;
      await this.#sleep(now - lastBusy < busyForMs ? ((now - t0) * (1 - busyShare)) / busyShare : 0);
    }
  }

  #report(message: string, counts: StepCounts, started: number, now: number, project?: string): void {
    const seconds = (now - started) / 1000;
    const { calls } = counts;
    const rate = seconds > 0 ? Math.round(calls / seconds) : calls;
    const fields = { ...counts, project, seconds: Math.round(seconds * 10) / 10, calls_per_s: rate };
    this.#log?.info(fields, message);
  }

  /** Waits `ms` (0: one turn of the event loop), or until stopped. */
  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#wake = done;
    });
  }
}
