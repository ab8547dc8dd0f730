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
