import { Type, type Static } from '@sinclair/typebox';
import { DateTimeIn, FreeObject, LaxBool, NullableLaxBool, NullableLaxInt, Nullable, strict } from './common.js';
import { Query, SortBy } from './query.js';

/** Calls API models (docs/spec/calls.md §2, §4). Names follow Weave's interface. */

const traceStatuses = ['success', 'error', 'running', 'descendant_error'] as const;

export const LLMUsageSchema = Type.Object(
  Object.fromEntries(
    ['prompt_tokens', 'input_tokens', 'completion_tokens', 'output_tokens', 'requests', 'total_tokens'].map((k) => [
      k,
      NullableLaxInt(),
    ]),
  ),
  { additionalProperties: true },
);

export const SummaryInsertMap = Type.Object(
  {
    usage: Type.Optional(Type.Record(Type.String(), LLMUsageSchema)),
    status_counts: Type.Optional(
      Type.Object(Object.fromEntries(traceStatuses.map((s) => [s, Type.Optional(Type.Integer())])), strict),
    ),
  },
  { additionalProperties: true },
);

export const StartedCallSchemaForInsert = Type.Object({
  project_id: Type.String(),
  id: Nullable(Type.String()),
  op_name: Type.String(),
  display_name: Nullable(Type.String()),
  trace_id: Nullable(Type.String()),
  parent_id: Nullable(Type.String()),
  thread_id: Nullable(Type.String()),
  turn_id: Nullable(Type.String()),
  started_at: DateTimeIn(),
  attributes: FreeObject(),
  inputs: FreeObject(),
  otel_dump: Nullable(FreeObject()),
  wb_user_id: Nullable(Type.String()),
  wb_run_id: Nullable(Type.String()),
  wb_run_step: NullableLaxInt(),
});

export const EndedCallSchemaForInsert = Type.Object({
  project_id: Type.String(),
  id: Type.String(),
  ended_at: DateTimeIn(),
  exception: Nullable(Type.String()),
  output: Type.Optional(Type.Unknown()),
  summary: SummaryInsertMap,
  wb_run_step_end: NullableLaxInt(),
});

export const CallStartReq = Type.Object({ start: StartedCallSchemaForInsert }, strict);
export const CallStartRes = Type.Object({ id: Type.String(), trace_id: Type.String() });
export const CallEndReq = Type.Object({ end: EndedCallSchemaForInsert }, strict);
export const CallEndRes = Type.Object({});

/**
 * Items are `{"mode": "start", "req": CallStartReq}` or `{"mode": "end", "req": CallEndReq}`. Each
 * `req` is validated on its own by the service so that a failure names its item
 * (`["body","batch","3","req",…]`) instead of a union.
 */
export const CallCreateBatchReq = Type.Object(
  {
    batch: Type.Array(
      Type.Object({ mode: Type.Optional(Type.String()), req: FreeObject() }, { additionalProperties: true }),
    ),
  },
  strict,
);
export const CallCreateBatchRes = Type.Object({ res: Type.Array(Type.Union([CallStartRes, CallEndRes])) });

export const CallReadReq = Type.Object(
  {
    project_id: Type.String(),
    id: Type.String(),
    include_costs: NullableLaxBool(),
    include_feedback: NullableLaxBool(),
    include_storage_size: NullableLaxBool(),
    include_total_storage_size: NullableLaxBool(),
  },
  strict,
);

/** A call as reads return it; every declared field is present (null when empty). */
export const CallSchema = Type.Object(
  {
    id: Type.String(),
    project_id: Type.String(),
    op_name: Type.String(),
    display_name: Type.Union([Type.String(), Type.Null()]),
    trace_id: Type.String(),
    parent_id: Type.Union([Type.String(), Type.Null()]),
    thread_id: Type.Union([Type.String(), Type.Null()]),
    turn_id: Type.Union([Type.String(), Type.Null()]),
    started_at: Type.String({ format: 'date-time' }),
    attributes: FreeObject(),
    inputs: FreeObject(),
    ended_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    exception: Type.Union([Type.String(), Type.Null()]),
    output: Type.Unknown(),
    summary: FreeObject(),
    wb_user_id: Type.Union([Type.String(), Type.Null()]),
    wb_run_id: Type.Union([Type.String(), Type.Null()]),
    wb_run_step: Type.Union([Type.Integer(), Type.Null()]),
    wb_run_step_end: Type.Union([Type.Integer(), Type.Null()]),
    deleted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    storage_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    total_storage_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    wb_username: Type.Union([Type.String(), Type.Null()]),
    expire_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'CallSchema' },
);
export const CallReadRes = Type.Object({ call: Type.Union([Type.Ref(CallSchema), Type.Null()]) });

export const CallUpdateReq = Type.Object(
  {
    project_id: Type.String(),
    call_id: Type.String(),
    display_name: Nullable(Type.String()),
    wb_user_id: Nullable(Type.String()),
  },
  strict,
);

export const CallsDeleteReq = Type.Object(
  { project_id: Type.String(), call_ids: Type.Array(Type.String()), wb_user_id: Nullable(Type.String()) },
  strict,
);
export const CallsDeleteRes = Type.Object({ num_deleted: Type.Integer() });

const StringList = () => Nullable(Type.Array(Type.String()));

export const CallsFilter = Type.Object(
  {
    op_names: StringList(),
    input_refs: StringList(),
    output_refs: StringList(),
    parent_ids: StringList(),
    trace_ids: StringList(),
    call_ids: StringList(),
    thread_ids: StringList(),
    turn_ids: StringList(),
    trace_roots_only: NullableLaxBool(),
    wb_user_ids: StringList(),
    wb_run_ids: StringList(),
  },
  strict,
);

export const CallsQueryReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(CallsFilter),
    query: Nullable(Query),
    sort_by: Nullable(Type.Array(SortBy)),
    limit: NullableLaxInt(),
    offset: NullableLaxInt(),
    columns: StringList(),
    expand_columns: StringList(),
    return_expanded_column_values: NullableLaxBool(),
    include_costs: NullableLaxBool(),
    include_feedback: NullableLaxBool(),
    include_storage_size: NullableLaxBool(),
    include_total_storage_size: NullableLaxBool(),
    include_usernames: NullableLaxBool(),
    latest_only: NullableLaxBool({
      description: 'Sent by weave 0.54 (always false); Heddle keeps one row per call, so it changes nothing',
    }),
  },
  strict,
);

export const CallsQueryRes = Type.Object({ calls: Type.Array(Type.Ref(CallSchema)) });

export const CallsQueryStatsReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(CallsFilter),
    query: Nullable(Query),
    limit: NullableLaxInt(),
    include_total_storage_size: NullableLaxBool(),
    expand_columns: StringList(),
  },
  strict,
);
export const CallsQueryStatsRes = Type.Object({
  count: Type.Integer(),
  total_storage_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  has_more: Type.Union([Type.Boolean(), Type.Null()]),
});

export type StartedCallSchemaForInsert = Static<typeof StartedCallSchemaForInsert>;
export type EndedCallSchemaForInsert = Static<typeof EndedCallSchemaForInsert>;
export type CallStartReq = Static<typeof CallStartReq>;
export type CallEndReq = Static<typeof CallEndReq>;
export type CallCreateBatchReq = Static<typeof CallCreateBatchReq>;
export type CallReadReq = Static<typeof CallReadReq>;
export type CallUpdateReq = Static<typeof CallUpdateReq>;
export type CallsDeleteReq = Static<typeof CallsDeleteReq>;
export type CallsFilterReq = Static<typeof CallsFilter>;
export type CallsQueryReq = Static<typeof CallsQueryReq>;
export type CallsQueryStatsReq = Static<typeof CallsQueryStatsReq>;
export type QueryReq = Static<typeof Query>;
export type SortByReq = Static<typeof SortBy>;
export { LaxBool };
