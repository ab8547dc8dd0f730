import { isRecord, type JsonRecord } from '../eval-results/types.js';

/**
 * The SDK's `auto_summarize` (docs/spec/evaluations.md §7.3), as `weave/flow/scorer.py` applies it
 * to one column of results: the first non-null value decides the type.
 */
export function autoSummarize(values: readonly unknown[]): JsonRecord | null {
  if (values.length === 0) return {};
  const known = values.filter((v) => v !== null && v !== undefined);
  if (known.length === 0) return null;
  const first = known[0];
  if (typeof first === 'boolean') {
    const trueCount = known.filter((v) => v === true).length;
    return { true_count: trueCount, true_fraction: trueCount / known.length };
  }
  if (typeof first === 'number') {
    const numbers = known.filter((v): v is number => typeof v === 'number');
    return { mean: numbers.reduce((a, b) => a + b, 0) / numbers.length };
  }
  if (isRecord(first)) {
    const records = known.filter(isRecord);
    const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
    const result: JsonRecord = {};
    for (const key of keys) {
      const nested = autoSummarize(records.map((r) => r[key] ?? null));
      if (nested === null) continue;
      // the SDK merges a nested summary up when it already carries the key (`{"score": {...}}`)
      if (Object.hasOwn(nested, key)) Object.assign(result, nested);
      else result[key] = nested;
    }
    return Object.keys(result).length === 0 ? null : result;
  }
  return null;
}

/** One finished trial as `Evaluation.predict_and_score` returns it. */
export interface TrialOutput {
  output: unknown;
  scores: JsonRecord;
  model_latency: number | null;
}

/**
 * `Evaluation.summarize`: the model output column, then one entry per scorer (kept as null when all
 * its results are null, §6.2), then `model_latency` — the column order of the SDK's results table.
 */
export function summarizeTrials(trials: readonly TrialOutput[], scorerNames: readonly string[]): JsonRecord {
  const summary: JsonRecord = {};
  const output = autoSummarize(trials.map((t) => t.output));
  if (output !== null && Object.keys(output).length > 0) summary.output = output;
  for (const name of scorerNames) summary[name] = autoSummarize(trials.map((t) => t.scores[name] ?? null));
  const latency = autoSummarize(trials.map((t) => t.model_latency));
  if (latency !== null && Object.keys(latency).length > 0) summary.model_latency = latency;
  return summary;
}
