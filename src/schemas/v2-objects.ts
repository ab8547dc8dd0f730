import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, LaxBool, LaxInt, Nullable } from './common.js';

/**
 * The v2 object APIs (docs/spec/evaluations.md §2). Bodies ignore unknown fields (§1), so none of these
 * objects is `strict`. Model names follow Weave's (`OpCreateBody`, `OpReadRes`, …).
 */

export const V2ObjectParams = Type.Object({ entity: Type.String(), project: Type.String(), object_id: Type.String() });
export const V2VersionParams = Type.Object({
  entity: Type.String(),
  project: Type.String(),
  object_id: Type.String(),
  digest: Type.String(),
});
export type V2VersionParams = Static<typeof V2VersionParams>;

/** `limit`/`offset` of every list (§1): non-integers → 422; negative values reach the service (400). */
export const V2ListQuery = Type.Object({ limit: Type.Optional(LaxInt()), offset: Type.Optional(LaxInt()) });
export type V2ListQuery = Static<typeof V2ListQuery>;

/** Ops read: `eager` is accepted and has no effect (§2.1). */
export const OpReadQuery = Type.Object({ eager: Type.Optional(LaxBool()) });

/** Repeated `digests` keys arrive as an array, a single one as a string. */
export const V2DeleteQuery = Type.Object({
  digests: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});
export type V2DeleteQuery = Static<typeof V2DeleteQuery>;
export const V2DeleteRes = Type.Object({ num_deleted: Type.Integer() });

const versionFields = { digest: Type.String(), object_id: Type.String(), version_index: Type.Integer() };
const readFields = { ...versionFields, created_at: Type.String({ format: 'date-time' }) };

export const OpCreateBody = Type.Object({ name: Nullable(Type.String()), source_code: Nullable(Type.String()) });
export type OpCreateBody = Static<typeof OpCreateBody>;
export const OpCreateRes = Type.Object(versionFields);
export const OpReadRes = Type.Object({ ...readFields, code: Type.String() });

export const DatasetCreateBody = Type.Object({
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  rows: Type.Array(FreeObject()),
});
export type DatasetCreateBody = Static<typeof DatasetCreateBody>;
export const DatasetCreateRes = Type.Object(versionFields);
export const DatasetReadRes = Type.Object({
  ...readFields,
  name: Type.String(),
  description: Nullable(Type.String()),
  rows: Type.String(),
});

export const ScorerCreateBody = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  op_source_code: Type.String(),
});
export type ScorerCreateBody = Static<typeof ScorerCreateBody>;
export const ScorerCreateRes = Type.Object({ ...versionFields, scorer: Type.String() });
export const ScorerReadRes = Type.Object({
  ...readFields,
  name: Type.String(),
  description: Nullable(Type.String()),
  score_op: Type.String(),
});

export const ModelCreateBody = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  source_code: Type.String(),
  attributes: Nullable(FreeObject()),
});
export type ModelCreateBody = Static<typeof ModelCreateBody>;
export const ModelCreateRes = Type.Object({ ...versionFields, model_ref: Type.String() });
export const ModelReadRes = Type.Object({
  ...readFields,
  name: Type.String(),
  description: Nullable(Type.String()),
  source_code: Type.String(),
  attributes: Nullable(FreeObject()),
});

export const EvaluationCreateBody = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  dataset: Type.String(),
  scorers: Nullable(Type.Array(Type.String())),
  trials: Type.Optional(Type.Integer()),
  evaluation_name: Nullable(Type.String()),
  eval_attributes: Nullable(FreeObject()),
});
export type EvaluationCreateBody = Static<typeof EvaluationCreateBody>;
export const EvaluationCreateRes = Type.Object({ ...versionFields, evaluation_ref: Type.String() });
export const EvaluationReadRes = Type.Object({
  ...readFields,
  name: Type.String(),
  description: Nullable(Type.String()),
  dataset: Type.String(),
  scorers: Type.Array(Type.String()),
  trials: Type.Integer(),
  evaluation_name: Nullable(Type.String()),
  evaluate_op: Nullable(Type.String()),
  predict_and_score_op: Nullable(Type.String()),
  summarize_op: Nullable(Type.String()),
});

/** What a version read answers, whichever the family (built by services/v2-object-views.ts). */
export type V2ReadRes =
  | Static<typeof OpReadRes>
  | Static<typeof DatasetReadRes>
  | Static<typeof ScorerReadRes>
  | Static<typeof ModelReadRes>
  | Static<typeof EvaluationReadRes>;
