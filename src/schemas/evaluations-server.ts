import { Type, type Static } from '@sinclair/typebox';

/** `POST /evaluations/status` (docs/spec/evaluations.md §6.4); unknown fields → 422. */
export const EvaluationStatusReq = Type.Object(
  { project_id: Type.String(), call_id: Type.String() },
  { additionalProperties: false },
);
export type EvaluationStatusReq = Static<typeof EvaluationStatusReq>;

export const EvaluationStatusNotFound = Type.Object({ code: Type.Literal('not_found') });
export const EvaluationStatusRunning = Type.Object({
  code: Type.Literal('running'),
  completed_rows: Type.Integer(),
  total_rows: Type.Integer(),
});
export const EvaluationStatusFailed = Type.Object({
  code: Type.Literal('failed'),
  error: Type.Union([Type.String(), Type.Null()]),
});
export const EvaluationStatusComplete = Type.Object({
  code: Type.Literal('complete'),
  output: Type.Record(Type.String(), Type.Unknown()),
});

export const EvaluationStatusRes = Type.Object({
  status: Type.Union([
    EvaluationStatusNotFound,
    EvaluationStatusRunning,
    EvaluationStatusFailed,
    EvaluationStatusComplete,
  ]),
});
export type EvaluationStatusRes = Static<typeof EvaluationStatusRes>;

/** `POST /evaluations/evaluate_model` (docs/spec/evaluations.md §6.1); unknown fields → 422. */
export const EvaluateModelReq = Type.Object(
  {
    project_id: Type.String(),
    evaluation_ref: Type.String(),
    model_ref: Type.String(),
    /** Server-populated: the job runs as the authenticated caller whatever this says. */
    wb_user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type EvaluateModelReq = Static<typeof EvaluateModelReq>;

export const EvaluateModelRes = Type.Object({ call_id: Type.String() });
export type EvaluateModelRes = Static<typeof EvaluateModelRes>;

/** `POST /calls/score` (docs/spec/evaluations.md §5); unknown fields are ignored. */
export const CallsScoreReq = Type.Object({
  project_id: Type.String(),
  call_ids: Type.Array(Type.String()),
  scorer_refs: Type.Array(Type.String()),
  /** Server-populated: the job runs as the authenticated caller whatever this says. */
  wb_user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type CallsScoreReq = Static<typeof CallsScoreReq>;

export const CallsScoreRes = Type.Object({});
export type CallsScoreRes = Static<typeof CallsScoreRes>;
