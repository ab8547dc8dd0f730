import type { GroupedRow } from './rows.js';
import { isRecord, type EvalCall, type EvaluationSummary, type ScorerStats, type TrialRecord } from './types.js';

/**
 * The per-evaluation summary of docs/spec/evaluations.md §4.3 steps 7–8: trial counts, predicted
 * tokens and costs, and statistics per scorer dimension (one per leaf of a scorer's output).
 */

class StatsTable {
  readonly #dims = new Map<string, ScorerStats>();

  #dimension(scorerKey: string, path: string | null, type: ScorerStats['value_type']): ScorerStats {
    const id = `${scorerKey}\u0000${path ?? ''}`;
    let dim = this.#dims.get(id);
    if (!dim) {
      dim = {
        scorer_key: scorerKey,
        path,
        value_type: type,
        trial_count: 0,
        numeric_count: 0,
        numeric_mean: null,
        pass_true_count: 0,
        pass_known_count: 0,
        pass_rate: null,
        pass_signal_coverage: null,
      };
      this.#dims.set(id, dim);
    }
    return dim;
  }

  add(scorerKey: string, value: unknown, path: string | null = null): void {
    if (typeof value === 'boolean') {
      const dim = this.#dimension(scorerKey, path, 'binary');
      dim.trial_count += 1;
      dim.pass_known_count += 1;
      if (value) dim.pass_true_count += 1;
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      const dim = this.#dimension(scorerKey, path, 'continuous');
      dim.trial_count += 1;
      dim.numeric_count += 1;
      dim.numeric_mean = (dim.numeric_mean ?? 0) + (value - (dim.numeric_mean ?? 0)) / dim.numeric_count;
    } else if (typeof value === 'string') {
      this.#dimension(scorerKey, path, 'text').trial_count += 1;
    } else if (isRecord(value)) {
      for (const [key, inner] of Object.entries(value))
        this.add(scorerKey, inner, path === null ? key : `${path}.${key}`);
    }
  }

  finish(): ScorerStats[] {
    return [...this.#dims.values()].map((dim) => ({
      ...dim,
      pass_rate: dim.pass_known_count > 0 ? dim.pass_true_count / dim.pass_known_count : null,
      pass_signal_coverage: dim.trial_count > 0 ? dim.pass_known_count / dim.trial_count : null,
    }));
  }
}

const sumOrNull = (values: Array<number | null>): number | null =>
  values.some((v) => v !== null) ? values.reduce<number>((sum, v) => sum + (v ?? 0), 0) : null;

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One summary per evaluation that has trials in `rows`, in the order the evaluations were given. */
export function summarize(
  rows: GroupedRow[],
  roots: EvalCall[],
  formatTime: (micros: number) => string,
): EvaluationSummary[] {
  const trialsOf = new Map<string, TrialRecord[]>();
  for (const row of rows) {
    for (const [id, trials] of row.byEvaluation) trialsOf.set(id, [...(trialsOf.get(id) ?? []), ...trials]);
  }
  const out: EvaluationSummary[] = [];
  for (const root of roots) {
    const trials = trialsOf.get(root.id);
    if (!trials || trials.length === 0) continue;
    const stats = new StatsTable();
    for (const record of trials) {
      for (const [key, value] of Object.entries(record.trial.scores)) stats.add(key, value);
    }
    out.push({
      evaluation_call_id: root.id,
      trial_count: trials.length,
      scorer_stats: stats.finish(),
      predict_total_tokens: sumOrNull(trials.map((r) => r.trial.total_tokens)),
      predict_total_cost: sumOrNull(trials.map((r) => r.trial.total_cost)),
      evaluation_ref: stringOrNull(root.inputs.self) ?? stringOrNull(root.inputs.this),
      model_ref: stringOrNull(root.inputs.model),
      display_name: root.displayName,
      trace_id: root.traceId,
      started_at: formatTime(root.startedAt),
    });
  }
  return out;
}
