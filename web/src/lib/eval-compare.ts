/**
 * The evaluation comparison's charts, baseline and score filter, pure: per-scorer bars of each
 * run's aggregate, the distribution of a numeric score over the loaded rows, each run's change
 * from a baseline run, and the `eval_results/query` filter for "rows where a score …".
 */
import {
  formatMetric,
  metric,
  scoreValue,
  statsFor,
  type EvalResultsRow,
  type EvalSummary,
  type ScoreDim,
} from './evals.js';

/** One bar group per dimension: each run's headline value under `r<i>` (the run's index in `ids`). */
export function scoreBars(
  evals: readonly EvalSummary[],
  ids: readonly string[],
  dim: ScoreDim,
): Record<string, string | number | null> {
  const row: Record<string, string | number | null> = { dim: dim.label };
  ids.forEach((id, i) => {
    const e = evals.find((x) => x.evaluation_call_id === id);
    const v = e ? metric(statsFor(e, dim)) : null;
    row[`r${i}`] = v == null ? null : dim.type === 'binary' ? Math.round(v * 1000) / 10 : v;
  });
  return row;
}

/** The numeric values of `dim` of run `id` over `rows` (booleans as 1/0; every trial). */
function runValues(rows: readonly EvalResultsRow[], id: string, dim: ScoreDim): number[] {
  const out: number[] = [];
  for (const r of rows)
    for (const e of r.evaluations)
      if (e.evaluation_call_id === id)
        for (const t of e.trials) {
          const v = scoreValue(t.scores, dim);
          if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
          else if (typeof v === 'boolean') out.push(Number(v));
        }
  return out;
}

/**
 * How often each run's values of a numeric dimension fall in each of up to `bins` equal ranges
 * between the smallest and the largest value any run has: rows `{bin, r0, r1, …}`. A dimension with
 * few distinct integer values gets a bin per value.
 */
export function scoreHistogram(
  rows: readonly EvalResultsRow[],
  ids: readonly string[],
  dim: ScoreDim,
  bins = 10,
): Record<string, string | number>[] {
  const values = ids.map((id) => runValues(rows, id, dim));
  const all = values.flat();
  if (all.length === 0) return [];
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const distinct = [...new Set(all)].sort((a, b) => a - b);
  const integers = distinct.every(Number.isInteger) && distinct.length <= bins;
  const edges = integers ? distinct : Array.from({ length: bins }, (_, i) => lo + ((hi - lo) * i) / bins);
  const width = integers ? 1 : (hi - lo) / bins;
  const label = (i: number) =>
    integers || width === 0 ? String(edges[i]) : `${edges[i]!.toFixed(2)}–${(edges[i]! + width).toFixed(2)}`;
  const binOf = (v: number) =>
    integers ? edges.indexOf(v) : width === 0 ? 0 : Math.min(bins - 1, Math.floor((v - lo) / width));
  const count = width === 0 && !integers ? 1 : edges.length;
  const out: Record<string, string | number>[] = Array.from({ length: count }, (_, i) => {
    const row: Record<string, string | number> = { bin: label(i) };
    ids.forEach((_, r) => (row[`r${r}`] = 0));
    return row;
  });
  values.forEach((vs, r) => {
    for (const v of vs) (out[binOf(v)]![`r${r}`] as number)++;
  });
  return out;
}

/** A run's change from the baseline in one dimension: `+8.3 pts` for a pass rate, `−0.42` for a mean. */
export function deltaText(dim: ScoreDim, value: number | null, base: number | null): string | null {
  if (value == null || base == null) return null;
  const d = value - base;
  if (dim.type === 'binary') {
    const pts = Math.round(d * 1000) / 10;
    return pts === 0 ? '±0 pts' : `${pts > 0 ? '+' : '−'}${Math.abs(pts)} pts`;
  }
  if (d === 0) return '±0';
  return `${d > 0 ? '+' : '−'}${formatMetric(dim, Math.abs(d))}`;
}

/** "Rows where a score …": which dimension, in which run (or any), and the condition. */
export interface ScoreFilter {
  /** The dimension's `scores.…` field. */
  field: string;
  /** An evaluation call id, or null for any compared run. */
  run: string | null;
  cond: 'pass' | 'fail' | 'gt' | 'lt';
  value: number | null;
}

export const FILTER_CONDITIONS: Record<ScoreFilter['cond'], string> = {
  pass: 'is true',
  fail: 'is false',
  gt: 'is above',
  lt: 'is below',
};

/** The `eval_results/query` filter (spec §4.1) for `f`; null when a comparison has no number. */
export function resultsFilter(f: ScoreFilter): { evaluation_call_id: string | null; query: unknown } | null {
  const field = { $getField: f.field };
  let expr: unknown;
  if (f.cond === 'pass' || f.cond === 'fail') expr = { $eq: [field, { $literal: f.cond === 'pass' }] };
  else if (f.value == null || !Number.isFinite(f.value)) return null;
  else if (f.cond === 'gt') expr = { $gt: [field, { $literal: f.value }] };
  else expr = { $not: [{ $gte: [field, { $literal: f.value }] }] };
  return { evaluation_call_id: f.run, query: { $expr: expr } };
}
