import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, LaxBool, LaxInt, Nullable } from './common.js';
import { Query } from './query.js';

/**
 * The call-backed v2 APIs (docs/spec/evaluations.md §3): evaluation runs, predictions and scores,
 * and `eval_results/query` (§4). Bodies ignore unknown fields (§1), so none of them is strict.
 */

const RunParams = { entity: Type.String(), project: Type.String() };
const ListPaging = { limit: Type.Optional(LaxInt()), offset: Type.Optional(LaxInt()) };
/** Repeated query keys arrive as an array, a single one as a string. */
const StringList = () => Type.Union([Type.String(), Type.Array(Type.String())]);

export const EvaluationRunParams = Type.Object({ ...RunParams, evaluation_run_id: Type.String() });
export type EvaluationRunParams = Static<typeof EvaluationRunParams>;
export const PredictionParams = Type.Object({ ...RunParams, prediction_id: Type.String() });
export type PredictionParams = Static<typeof PredictionParams>;
export const ScoreParams = Type.Object({ ...RunParams, score_id: Type.String() });
export type ScoreParams = Static<typeof ScoreParams>;

export const EvaluationRunCreateBody = Type.Object({
  evaluation: Type.String(),
  model: Type.String(),
  source_evaluation_run_id: Type.Optional(Nullable(Type.String())),
});
export type EvaluationRunCreateBody = Static<typeof EvaluationRunCreateBody>;
export const EvaluationRunCreateRes = Type.Object({ evaluation_run_id: Type.String() });

export const EvaluationRunReadRes = Type.Object({
  evaluation_run_id: Type.String(),
  evaluation: Type.String(),
  model: Type.String(),
  status: Nullable(Type.String()),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  summary: Nullable(FreeObject()),
  source_evaluation_run_id: Nullable(Type.String()),
});
export type EvaluationRunReadRes = Static<typeof EvaluationRunReadRes>;

export const EvaluationRunListQuery = Type.Object({
  evaluations: Type.Optional(StringList()),
  models: Type.Optional(StringList()),
  evaluation_run_ids: Type.Optional(StringList()),
  ...ListPaging,
});
export type EvaluationRunListQuery = Static<typeof EvaluationRunListQuery>;

export const EvaluationRunDeleteQuery = Type.Object({ evaluation_run_ids: StringList() });
export type EvaluationRunDeleteQuery = Static<typeof EvaluationRunDeleteQuery>;

export const EvaluationRunFinishBody = Type.Object({ summary: Type.Optional(Nullable(FreeObject())) });
export type EvaluationRunFinishBody = Static<typeof EvaluationRunFinishBody>;
/** Prediction finish takes no fields; a body, when sent, is ignored. */
export const PredictionFinishBody = Type.Object({});
export const SuccessRes = Type.Object({ success: Type.Boolean() });
export const NumDeletedRes = Type.Object({ num_deleted: Type.Integer() });

const GenaiSpanRef = Type.Object({ trace_id: Type.String(), span_id: Type.String() });

export const PredictionCreateBody = Type.Object({
  model: Type.String(),
  inputs: FreeObject(),
  output: Type.Unknown(),
  evaluation_run_id: Type.Optional(Nullable(Type.String())),
  genai_span_ref: Type.Optional(Nullable(Type.Array(GenaiSpanRef))),
});
export type PredictionCreateBody = Static<typeof PredictionCreateBody>;
export const PredictionCreateRes = Type.Object({ prediction_id: Type.String() });

export const PredictionReadRes = Type.Object({
  prediction_id: Type.String(),
  model: Type.String(),
  inputs: FreeObject(),
  output: Type.Unknown(),
  evaluation_run_id: Nullable(Type.String()),
  wb_user_id: Nullable(Type.String()),
});
export type PredictionReadRes = Static<typeof PredictionReadRes>;

export const ChildListQuery = Type.Object({ evaluation_run_id: Type.Optional(Type.String()), ...ListPaging });
export type ChildListQuery = Static<typeof ChildListQuery>;
export const PredictionDeleteQuery = Type.Object({ prediction_ids: StringList() });
export type PredictionDeleteQuery = Static<typeof PredictionDeleteQuery>;

export const ScoreCreateBody = Type.Object({
  prediction_id: Type.String(),
  scorer: Type.String(),
  value: Type.Unknown(),
  evaluation_run_id: Type.Optional(Nullable(Type.String())),
});
export type ScoreCreateBody = Static<typeof ScoreCreateBody>;
export const ScoreCreateRes = Type.Object({ score_id: Type.String() });

export const ScoreReadRes = Type.Object({
  score_id: Type.String(),
  scorer: Type.String(),
  value: Type.Unknown(),
  evaluation_run_id: Nullable(Type.String()),
  wb_user_id: Nullable(Type.String()),
});
export type ScoreReadRes = Static<typeof ScoreReadRes>;
export const ScoreDeleteQuery = Type.Object({ score_ids: StringList() });
export type ScoreDeleteQuery = Static<typeof ScoreDeleteQuery>;

// ---------------------------------------------------------------- eval_results/query (§4)

const SortBy = Type.Object({
  field: Type.String(),
  direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]),
  evaluation_call_id: Type.Optional(Nullable(Type.String())),
  mode: Type.Optional(Nullable(Type.Union([Type.Literal('value'), Type.Literal('difference')]))),
});

const Filter = Type.Object({ evaluation_call_id: Type.Optional(Nullable(Type.String())), query: Query });

export const EvalResultsQueryBody = Type.Object({
  evaluation_call_ids: Type.Optional(Nullable(Type.Array(Type.String()))),
  evaluation_run_ids: Type.Optional(Nullable(Type.Array(Type.String()))),
  require_intersection: Type.Optional(LaxBool()),
  include_raw_data_rows: Type.Optional(LaxBool()),
  resolve_row_refs: Type.Optional(LaxBool()),
  include_rows: Type.Optional(LaxBool()),
  include_summary: Type.Optional(LaxBool()),
  summary_require_intersection: Type.Optional(Nullable(LaxBool())),
  include_predict_and_score_children: Type.Optional(LaxBool()),
  include_costs: Type.Optional(LaxBool()),
  sort_by: Type.Optional(Nullable(Type.Array(SortBy))),
  filters: Type.Optional(Nullable(Type.Array(Filter))),
  filter_logic_operator: Type.Optional(Type.Union([Type.Literal('and'), Type.Literal('or')])),
  limit: Type.Optional(Nullable(LaxInt())),
  offset: Type.Optional(LaxInt()),
});
export type EvalResultsQueryBody = Static<typeof EvalResultsQueryBody>;

const Trial = Type.Object({
  predict_and_score_call_id: Type.String(),
  predict_call_id: Nullable(Type.String()),
  model_output: Type.Unknown(),
  scores: FreeObject(),
  model_latency_seconds: Nullable(Type.Number()),
  total_tokens: Nullable(Type.Integer()),
  total_cost: Nullable(Type.Number()),
  scorer_call_ids: Type.Record(Type.String(), Type.String()),
  genai_span_ref: Nullable(Type.Array(GenaiSpanRef)),
});

const ScorerStats = Type.Object({
  scorer_key: Type.String(),
  path: Nullable(Type.String()),
  value_type: Nullable(Type.Union([Type.Literal('binary'), Type.Literal('continuous'), Type.Literal('text')])),
  trial_count: Type.Integer(),
  numeric_count: Type.Integer(),
  numeric_mean: Nullable(Type.Number()),
  pass_true_count: Type.Integer(),
  pass_known_count: Type.Integer(),
  pass_rate: Nullable(Type.Number()),
  pass_signal_coverage: Nullable(Type.Number()),
});

const EvaluationSummary = Type.Object({
  evaluation_call_id: Type.String(),
  trial_count: Type.Integer(),
  scorer_stats: Type.Array(ScorerStats),
  predict_total_tokens: Nullable(Type.Integer()),
  predict_total_cost: Nullable(Type.Number()),
  evaluation_ref: Nullable(Type.String()),
  model_ref: Nullable(Type.String()),
  display_name: Nullable(Type.String()),
  trace_id: Nullable(Type.String()),
  started_at: Nullable(Type.String()),
});

export const EvalResultsQueryRes = Type.Object({
  rows: Type.Array(
    Type.Object({
      row_digest: Type.String(),
      raw_data_row: Type.Unknown(),
      evaluations: Type.Array(Type.Object({ evaluation_call_id: Type.String(), trials: Type.Array(Trial) })),
    }),
  ),
  total_rows: Type.Integer(),
  summary: Nullable(Type.Object({ row_count: Type.Integer(), evaluations: Type.Array(EvaluationSummary) })),
  warnings: Type.Array(Type.String()),
});
