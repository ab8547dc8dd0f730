import { Type, type Static } from '@sinclair/typebox';
import { DateTimeIn, FreeObject, Nullable, NullableLaxInt, strict } from './common.js';
import { Query, recordQueryFields } from './query.js';

/** Feedback API models (docs/spec/objects.md §7). */

const createFields = {
  id: Nullable(Type.String()),
  project_id: Type.String(),
  weave_ref: Type.String(),
  creator: Nullable(Type.String()),
  feedback_type: Type.String(),
  payload: FreeObject(),
  annotation_ref: Nullable(Type.String()),
  runnable_ref: Nullable(Type.String()),
  call_ref: Nullable(Type.String()),
  trigger_ref: Nullable(Type.String()),
  queue_id: Nullable(Type.String()),
  scorer_tags: Type.Optional(Type.Array(Type.String())),
  scorer_tag_reasons: Type.Optional(Type.Record(Type.String(), Type.String())),
  scorer_tag_confidences: Type.Optional(Type.Record(Type.String(), Type.Number())),
  scorer_ratings: Type.Optional(Type.Record(Type.String(), Type.Number())),
  scorer_rating_reasons: Type.Optional(Type.Record(Type.String(), Type.String())),
  scorer_rating_confidences: Type.Optional(Type.Record(Type.String(), Type.Number())),
  span_agent_name: Type.Optional(Type.String()),
  span_agent_version: Type.Optional(Type.String()),
  span_conversation_id: Type.Optional(Type.String()),
  span_trace_id: Type.Optional(Type.String()),
  scorer_trace_id: Type.Optional(Type.String()),
  span_status_code: Type.Optional(Type.String()),
  wb_user_id: Nullable(Type.String()),
};

export const FeedbackCreateReq = Type.Object(createFields, strict);
export type FeedbackCreateReq = Static<typeof FeedbackCreateReq>;
export const FeedbackCreateRes = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  wb_user_id: Type.String(),
  payload: FreeObject(),
});
export type FeedbackCreateRes = Static<typeof FeedbackCreateRes>;

export const FeedbackBatchCreateReq = Type.Object({ batch: Type.Array(FeedbackCreateReq) }, strict);
export type FeedbackBatchCreateReq = Static<typeof FeedbackBatchCreateReq>;
export const FeedbackBatchCreateRes = Type.Object({ res: Type.Array(FeedbackCreateRes) });

export const FeedbackReplaceReq = Type.Object({ ...createFields, feedback_id: Type.String() }, strict);
export type FeedbackReplaceReq = Static<typeof FeedbackReplaceReq>;

export const FeedbackQueryReq = Type.Object(recordQueryFields(), strict);
export type FeedbackQueryReq = Static<typeof FeedbackQueryReq>;
export const FeedbackQueryRes = Type.Object({ result: Type.Array(FreeObject()), total_count: Type.Integer() });

export const PurgeReq = Type.Object({ project_id: Type.String(), query: Query }, strict);
export type PurgeReq = Static<typeof PurgeReq>;

const windowFields = {
  project_id: Type.String(),
  start: DateTimeIn(),
  end: Type.Optional(Type.Union([DateTimeIn(), Type.Null()])),
  feedback_type: Nullable(Type.String()),
  trigger_ref: Nullable(Type.String()),
};

export const FeedbackPayloadSchemaReq = Type.Object(
  { ...windowFields, sample_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })) },
  strict,
);
export type FeedbackPayloadSchemaReq = Static<typeof FeedbackPayloadSchemaReq>;
export const FeedbackPayloadSchemaRes = Type.Object({
  paths: Type.Array(Type.Object({ json_path: Type.String(), value_type: Type.String() })),
});

const Aggregation = Type.Union(
  (['sum', 'avg', 'min', 'max', 'count', 'count_true', 'count_false'] as const).map((a) => Type.Literal(a)),
);
export const FeedbackMetricSpec = Type.Object(
  {
    json_path: Type.String(),
    value_type: Type.Optional(
      Type.Union([Type.Literal('numeric'), Type.Literal('boolean'), Type.Literal('categorical')]),
    ),
    aggregations: Type.Optional(Type.Array(Aggregation)),
    percentiles: Type.Optional(Type.Array(Type.Number({ minimum: 0, maximum: 100 }))),
  },
  strict,
);
export type FeedbackMetricSpec = Static<typeof FeedbackMetricSpec>;

export const FeedbackStatsReq = Type.Object(
  {
    ...windowFields,
    granularity: NullableLaxInt(),
    timezone: Type.Optional(Type.String()),
    metrics: Type.Optional(Type.Array(FeedbackMetricSpec)),
  },
  strict,
);
export type FeedbackStatsReq = Static<typeof FeedbackStatsReq>;
