import { isRecord, type JsonRecord } from '../eval-results/types.js';

/**
 * What the SDK folds into a call's summary when it ends (docs/spec/evaluations.md §6.2):
 * `status_counts` of the call and its descendants, and the usage of its descendants' LLM calls.
 */
export class Rollup {
  success = 0;
  error = 0;
  readonly usage = new Map<string, JsonRecord>();

  addUsage(model: string, usage: unknown): void {
    if (!isRecord(usage)) return;
    const entry = this.usage.get(model) ?? {};
    for (const [key, value] of Object.entries(usage))
      if (typeof value === 'number') entry[key] = (typeof entry[key] === 'number' ? (entry[key] as number) : 0) + value;
    this.usage.set(model, entry);
  }

  add(other: Rollup): void {
    this.success += other.success;
    this.error += other.error;
    for (const [model, usage] of other.usage) this.addUsage(model, usage);
  }

  /** Counts this call itself, then returns the summary to end it with. */
  close(failed: boolean): JsonRecord {
    if (failed) this.error += 1;
    else this.success += 1;
    const summary: JsonRecord = { status_counts: { success: this.success, error: this.error } };
    if (this.usage.size > 0) summary.usage = Object.fromEntries(this.usage);
    return summary;
  }
}

/** A child call failed; the parent ends with the child's exception text as it is. */
export class ChildCallError extends Error {}

/** `Type: message` as the call's exception text. */
export function exceptionText(error: unknown): string {
  if (error instanceof ChildCallError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${String(error)}`;
}
