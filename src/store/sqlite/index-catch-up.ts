import type { CallTextStep } from '../call-text-types.js';
import type { IndexerStep } from '../sql/call-indexes/text-index.js';

/** The calls of a step the writer takes on by itself: short, so a write that arrives waits little. */
export const CATCH_UP_CALLS = 250;
/**
 * How long the writer must have had no write (other than the indexer's) before it steps by itself:
 * during ingest the main thread's loop paces the indexer alone, so a burst keeps its rate.
 */
export const QUIET_MS = 500;

/**
 * The call indexer's text steps that the writer thread carries on by itself (issue 30). The main
 * thread's loop (services/call-indexes/text-indexer.ts) paces the indexer and logs it, one step at a
 * time; while a long read holds the main thread (a traces-table query over the calls not indexed
 * yet), its next step waited, and the writer sat idle with calls left to index. Now, after a text
 * step that found a full batch, the writer runs further steps of the same project once it has had no
 * other write for QUIET_MS, until one finds less than a full batch. Writes go first: each turn
 * flushes the queued writes before it steps, and a write starts the quiet spell again. A step that fails ends the catch-up; the main thread's next step meets
 * the same error and logs it.
 */
export class IndexCatchUp {
  #next: IndexerStep | null = null;
  /** Steps of no calls in a row (two end the catch-up). */
  #empty = 0;
  #scheduled = false;
  #closed = false;
  /** When a write other than an indexer step was last applied (performance.now()). */
  #lastWriteAt = -Infinity;

  constructor(
    /** Runs one step on the writer's connection, in its own transaction; null when it failed. */
    private readonly runStep: (step: IndexerStep) => CallTextStep | null,
    /** Applies the writes queued meanwhile (called before each step). */
    private readonly flushWrites: () => void,
  ) {}

  /** A step the main thread asked for has run: carry on after it if it found a full batch. */
  noteStep(step: IndexerStep, result: CallTextStep): void {
    this.#empty = 0;
    this.#carryOn(step, result);
  }

  /** Writes other than the indexer's were applied: the writer waits for a quiet spell again. */
  noteWrites(): void {
    this.#lastWriteAt = performance.now();
  }

  close(): void {
    this.#closed = true;
    this.#next = null;
  }

  #schedule(): void {
    if (this.#scheduled || this.#next === null || this.#closed) return;
    this.#scheduled = true;
    const quietIn = this.#lastWriteAt + QUIET_MS - performance.now();
    if (quietIn > 0) setTimeout(() => this.#turn(), quietIn).unref();
    else setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    if (this.#closed) return;
    this.flushWrites();
    const step = this.#next;
    if (step === null) return;
    if (performance.now() - this.#lastWriteAt < QUIET_MS) return this.#schedule();
    const result = this.runStep(step);
    if (result === null) this.#next = null;
    else this.#carryOn(step, result);
  }

  #carryOn(step: IndexerStep, result: CallTextStep): void {
    this.#empty = result.calls === 0 ? this.#empty + 1 : 0;
    this.#next = this.#empty >= 2 ? null : continuationOf(step, result);
    this.#schedule();
  }
}

/**
 * The step that continues `step`, or null: when it found less than a full batch (the project is
 * done), nothing to index, or failed. A step of no calls on a project (its first: the mark made,
 * calls without a change sequence looked for) is continued too; `IndexCatchUp` stops after two
 * of those in a row.
 */
export function continuationOf(step: IndexerStep, result: CallTextStep): IndexerStep | null {
  if (step.kind !== 'text' || result.project === null) return null;
  if (result.calls > 0 && result.calls < step.maxCalls) return null;
  return { kind: 'text', maxCalls: Math.min(step.maxCalls, CATCH_UP_CALLS), after: step.after };
}
