/**
 * The evaluation-results model of docs/spec/evaluations.md §4: what an evaluation's calls become
 * once grouped by dataset row. Pure data; the service loads the calls and hands them over parsed.
 */

export type JsonRecord = Record<string, unknown>;

/** A stored call with its JSON columns parsed (absent columns are `{}` / null). */
export interface EvalCall {
  id: string;
  /** The op name as stored: an op ref or a plain name. */
  opName: string;
  parentId: string | null;
  traceId: string;
  displayName: string | null;
  /** Microseconds since the epoch. */
  startedAt: number;
  endedAt: number | null;
  inputs: JsonRecord;
  output: unknown;
  attributes: JsonRecord;
  summary: JsonRecord;
  wbUserId: string | null;
}

export interface GenaiSpanRef {
  trace_id: string;
  span_id: string;
}

/** One `predict_and_score` call of an evaluation, as the wire shows it. */
export interface EvalTrial {
  predict_and_score_call_id: string;
  predict_call_id: string | null;
  model_output: unknown;
  scores: JsonRecord;
  model_latency_seconds: number | null;
  total_tokens: number | null;
  total_cost: number | null;
  scorer_call_ids: Record<string, string>;
  genai_span_ref: GenaiSpanRef[] | null;
}

/** A trial with what grouping, filtering and costing need beside the wire fields. */
export interface TrialRecord {
  evaluationId: string;
  rowDigest: string;
  /** `inputs.example` of the `predict_and_score` call (a dataset-row ref or an inline row). */
  example: unknown;
  startedAt: number;
  /** The call whose usage counts as the prediction's (the predict call, else the trial's own). */
  usageCall: EvalCall;
  trial: EvalTrial;
}

export interface EvalResultsRowEvaluation {
  evaluation_call_id: string;
  trials: EvalTrial[];
}

export interface EvalResultsRow {
  row_digest: string;
  raw_data_row: unknown;
  evaluations: EvalResultsRowEvaluation[];
}

export interface ScorerStats {
  scorer_key: string;
  path: string | null;
  value_type: 'binary' | 'continuous' | 'text' | null;
  trial_count: number;
  numeric_count: number;
  numeric_mean: number | null;
  pass_true_count: number;
  pass_known_count: number;
  pass_rate: number | null;
  pass_signal_coverage: number | null;
}

export interface EvaluationSummary {
  evaluation_call_id: string;
  trial_count: number;
  scorer_stats: ScorerStats[];
  predict_total_tokens: number | null;
  predict_total_cost: number | null;
  evaluation_ref: string | null;
  model_ref: string | null;
  display_name: string | null;
  trace_id: string | null;
  started_at: string | null;
}

export interface EvalResultsSummary {
  row_count: number;
  evaluations: EvaluationSummary[];
}

export interface EvalResultsSortBy {
  field: string;
  direction: 'asc' | 'desc';
  evaluation_call_id?: string | null;
  mode?: 'value' | 'difference' | null;
}

export interface EvalResultsFilter {
  evaluation_call_id?: string | null;
  query: { $expr: unknown };
}

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
