/** Evaluation results as `eval_results/query` returns them (evaluations spec §4.2), and pure helpers. */
import type { Call } from './call.js';
import { parseRef } from './format.js';

export type EvalStatus =
  | { code: 'not_found' }
  | { code: 'running'; completed_rows: number; total_rows: number }
  | { code: 'failed'; error: string | null }
  | { code: 'complete'; output: Record<string, unknown> };

export interface EvalTrial {
  predict_and_score_call_id: string;
  predict_call_id: string | null;
  model_output: unknown;
  scores: Record<string, unknown>;
  model_latency_seconds: number | null;
  total_tokens: number | null;
  total_cost: number | null;
}

export interface EvalResultsRow {
  row_digest: string;
  raw_data_row: unknown;
  evaluations: { evaluation_call_id: string; trials: EvalTrial[] }[];
}

export interface ScorerStats {
  scorer_key: string;
  path: string | null;
  value_type: 'binary' | 'continuous' | 'text' | null;
  trial_count: number;
  numeric_mean: number | null;
  pass_true_count: number;
  pass_known_count: number;
  pass_rate: number | null;
}

export interface EvalSummary {
  evaluation_call_id: string;
  trial_count: number;
  scorer_stats: ScorerStats[];
  predict_total_tokens: number | null;
  predict_total_cost: number | null;
  evaluation_ref: string | null;
  model_ref: string | null;
  display_name: string | null;
  started_at: string | null;
}

export interface EvalResultsSummary {
  row_count: number;
  evaluations: EvalSummary[];
}

export interface EvalResultsPage {
  rows: EvalResultsRow[];
  total_rows: number;
  summary: EvalResultsSummary | null;
  warnings: string[];
}

export type EvalKind = 'Server-side' | 'EvaluationLogger' | 'Run API' | 'Evaluation';

const record = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Which client wrote a run: markers of spec §3.2, §6.2 and §7.2. */
export function evalKind(call: Pick<Call, 'attributes'>): EvalKind {
  const meta = record(record(call.attributes)._weave_eval_meta);
  if (meta.evaluate_model_worker) return 'Server-side';
  if (meta.imperative) return 'EvaluationLogger';
  if (record(record(call.attributes).weave).evaluation_run === 'true') return 'Run API';
  return 'Evaluation';
}

/** The object name of a ref, or the `name` of an inline object, else a dash. */
export function refName(v: unknown): string {
  if (typeof v === 'string') return parseRef(v)?.name ?? v;
  const name = record(v).name;
  return typeof name === 'string' ? name : '—';
}

/** One score dimension of the summary (spec §4.3 step 8): a scorer key and a dot path inside it. */
export interface ScoreDim {
  key: string;
  path: string | null;
  /** `scores.<key>[.<path>]`, the field name `sort_by` takes. */
  field: string;
  label: string;
  type: ScorerStats['value_type'];
}

/** Every dimension over the compared evaluations, in first-seen order. */
export function scoreDims(summary: EvalResultsSummary | undefined): ScoreDim[] {
  const seen = new Map<string, ScoreDim>();
  for (const e of summary?.evaluations ?? [])
    for (const s of e.scorer_stats) {
      const label = s.path ? `${s.scorer_key}.${s.path}` : s.scorer_key;
      if (!seen.has(label))
        seen.set(label, { key: s.scorer_key, path: s.path, field: `scores.${label}`, label, type: s.value_type });
    }
  return [...seen.values()];
}

export function statsFor(e: EvalSummary, dim: ScoreDim): ScorerStats | undefined {
  return e.scorer_stats.find((s) => s.scorer_key === dim.key && s.path === dim.path);
}

/** The headline number of a dimension: the pass rate of a binary score, the mean of a numeric one. */
export function metric(s: ScorerStats | undefined): number | null {
  if (!s) return null;
  if (s.value_type === 'binary') return s.pass_rate;
  if (s.value_type === 'continuous') return s.numeric_mean;
  return null;
}

export function formatMetric(dim: ScoreDim, v: number | null): string {
  if (v == null) return '—';
  if (dim.type === 'binary') return `${(v * 100).toFixed(1)}%`;
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}

/** The value of a dimension inside one trial's `scores`. */
export function scoreValue(scores: Record<string, unknown>, dim: ScoreDim): unknown {
  let v: unknown = scores[dim.key];
  for (const p of dim.path ? dim.path.split('.') : []) v = record(v)[p];
  return v;
}

export function formatScore(v: unknown): string {
  if (v === true) return '✓ true';
  if (v === false) return '✕ false';
  if (v == null) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The first trial of an evaluation in a row, if it has one. */
export function trialOf(row: EvalResultsRow, evalId: string): EvalTrial | undefined {
  return row.evaluations.find((e) => e.evaluation_call_id === evalId)?.trials[0];
}

const same = (values: unknown[]) => values.every((v) => JSON.stringify(v) === JSON.stringify(values[0]));

export interface RowDiff {
  output: boolean;
  /** dimension label → whether its values differ */
  scores: Record<string, boolean>;
  any: boolean;
  /** How many of the compared evaluations have the row (fewer than all: not comparable as "same"). */
  present: number;
}

/** Where the compared evaluations disagree in a row (only evaluations that have the row count). */
export function rowDiff(row: EvalResultsRow, ids: string[], dims: ScoreDim[]): RowDiff {
  const trials = ids.map((id) => trialOf(row, id)).filter((t): t is EvalTrial => t != null);
  const output = trials.length > 1 && !same(trials.map((t) => t.model_output));
  const scores: Record<string, boolean> = {};
  for (const d of dims)
    scores[d.label] = trials.length > 1 && !same(trials.map((t) => scoreValue(t.scores, d) ?? null));
  return { output, scores, any: output || Object.values(scores).some(Boolean), present: trials.length };
}

/** One aggregate of a run's summary output (spec §7.3 shapes): a scorer path and its `true_fraction` or `mean`. */
export interface SummaryMetric {
  path: string;
  value: number;
  /** A `true_fraction` (a pass rate), not a `mean`. */
  fraction: boolean;
}

/** Every aggregate of a run's summary output in key order, nested scorer paths dot-joined. */
export function summaryMetrics(output: unknown): SummaryMetric[] {
  const out: SummaryMetric[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    const r = record(v);
    if (typeof r.true_fraction === 'number') out.push({ path, value: r.true_fraction, fraction: true });
    else if (typeof r.mean === 'number') out.push({ path, value: r.mean, fraction: false });
    else if (depth < 4) for (const [k, child] of Object.entries(r)) walk(child, `${path}.${k}`, depth + 1);
  };
  for (const [k, v] of Object.entries(record(output))) walk(v, k, 0);
  return out;
}

/** One line for a run's summary output: `true_fraction` as a percentage, `mean` as a number (latency left out). */
export function summaryLine(output: unknown, max = 4): string {
  return summaryMetrics(output)
    .filter((m) => m.path !== 'model_latency')
    .slice(0, max)
    .map((m) =>
      m.fraction
        ? `${m.path} ${(m.value * 100).toFixed(0)}%`
        : `${m.path} ${Number.isInteger(m.value) ? m.value : m.value.toFixed(2)}`,
    )
    .join(' · ');
}

const isWeaveRef = (v: unknown): v is string => typeof v === 'string' && v.startsWith('weave:///');

/** Distinct model outputs that are weave refs (the client may store an output as a ref). */
export function outputRefsOf(rows: EvalResultsRow[]): string[] {
  const refs = new Set<string>();
  for (const r of rows)
    for (const e of r.evaluations) for (const t of e.trials) if (isWeaveRef(t.model_output)) refs.add(t.model_output);
  return [...refs].sort();
}

/** Rows with ref outputs replaced by their values (unresolved ones stay as refs). */
export function withResolvedOutputs(
  rows: EvalResultsRow[],
  values: Map<string, unknown> | undefined,
): EvalResultsRow[] {
  if (!values || values.size === 0) return rows;
  return rows.map((r) => ({
    ...r,
    evaluations: r.evaluations.map((e) => ({
      ...e,
      trials: e.trials.map((t) =>
        isWeaveRef(t.model_output) && values.has(t.model_output)
          ? { ...t, model_output: values.get(t.model_output) }
          : t,
      ),
    })),
  }));
}
