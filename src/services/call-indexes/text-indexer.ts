import type { TraceStore } from '../../store/types.js';
import type { BackgroundLog } from '../../domain/log.js';

/** How the indexer paces itself. */
export interface TextIndexerOptions {
  /** How long it waits before looking again once nothing is left to index. */
  idleMs: number;
  /**
   * The share of time it keeps while call writes (the ingest) wait without a pause: after a step of
   * t ms it yields to them for at most t × (1 − share) / share, and steps again as soon as none is
   * waiting. Writes of the other background loops do not count: they never hold it back.
   */
  minShare: number;
  /** How often it looks whether the ingest it yields to has drained. */
  pollMs: number;
}

/** How often progress goes to the log while the indexer has work. */
const LOG_EVERY_MS = 10_000;

const DEFAULTS: TextIndexerOptions = { idleMs: 1_000, minShare: 0.25, pollMs: 2 };

/**
 * How long the indexer yields to the ingest after a step of `stepMs` (at most; it steps again once
 * no call write waits): what keeps its share at `minShare` while writes never stop.
 */
export function yieldBudgetMs(stepMs: number, minShare: number): number {
  return (stepMs * (1 - minShare)) / minShare;
}

/**
 * The background indexer of the substring index and of `call_values` (docs/query-performance.md
 * "Substrings", "Equality on an input field"): runs on every node, step after step
 * (store.callText.step: one short transaction over one project's calls not indexed yet), so
 * ingest never writes these indexes itself. It runs whenever no call write waits, so the gaps of a
 * steady ingest are its own; under ingest without gaps it still keeps `minShare` of the writer; idle,
 * it catches up at full speed.
 * Its position is in the database (`call_text_marks`): a restart continues where it stopped, and
 * a store upgraded with calls is indexed the same way from the start, with progress in the log.
 */
export class CallTextIndexer {
  readonly #options: TextIndexerOptions;
  #log: BackgroundLog | null = null;
  #stopped = true;
  #running: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(
    private readonly store: Pick<TraceStore, 'callText' | 'load'>,
    options: Partial<TextIndexerOptions> = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
  }

  start(log: BackgroundLog): void {
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
    // calls indexed, calls priced for the cost entries (migration 024), calls filled (migration 025)
    let calls = 0;
    let priced = 0;
    let filled = 0;
    let started = 0;
    let lastLog = 0;
    while (!this.#stopped) {
      const t0 = performance.now();
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
        if (calls + priced + filled > 0)
          this.#report('call text index: caught up', { calls, priced, filled }, started, now);
        calls = priced = filled = 0;
        await this.#sleep(this.#options.idleMs);
        continue;
      }
      if (step.analyzed) this.#log?.info({ tables: step.analyzed }, 'call text index: planner statistics refreshed');
      if (calls + priced + filled === 0) started = lastLog = t0;
      if (step.kind === 'cost') priced += step.calls;
      else if (step.kind === 'fill') filled += step.calls;
      else calls += step.calls;
      if (now - lastLog >= LOG_EVERY_MS) {
        lastLog = now;
        this.#report('call text index: progress', { calls, priced, filled }, started, now, step.project);
      }
      await this.#yieldToIngest(yieldBudgetMs(now - t0, this.#options.minShare));
    }
  }

  /** Waits while call writes are queued, for at most `budgetMs`; a turn of the event loop at least. */
  async #yieldToIngest(budgetMs: number): Promise<void> {
    const until = performance.now() + budgetMs;
    await this.#sleep(0);
    while (!this.#stopped && this.store.load().pendingCallWrites > 0) {
      const left = until - performance.now();
      if (left <= 0) return;
      await this.#sleep(Math.min(left, this.#options.pollMs));
    }
  }

  #report(
    message: string,
    counts: { calls: number; priced: number; filled: number },
    started: number,
    now: number,
    project?: string,
  ): void {
    const seconds = (now - started) / 1000;
    const rate = seconds > 0 ? Math.round(counts.calls / seconds) : counts.calls;
    this.#log?.info({ ...counts, project, seconds: Math.round(seconds * 10) / 10, calls_per_s: rate }, message);
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
