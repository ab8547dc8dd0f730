import { Type, type Static } from '@sinclair/typebox';
import { DateTimeIn, FreeObject, LaxBool, LaxInt, Nullable } from './common.js';
import { Query } from './query.js';

/**
 * The Agents API (docs/spec/agents.md §0.1). Unknown request fields are ignored at every level
 * (§0 "our choice"), so these objects are not strict. Answers are free-form objects built by the
 * agents service to the shapes of §3–§11.
 */

const ProjectId = Type.String({ description: '`entity/project`' });
const Direction = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
const SortTerm = Type.Object({ field: Type.String(), direction: Type.Optional(Direction) });
const Page = (max: number, fallback: number) => ({
  limit: Type.Optional(LaxInt({ minimum: 0, maximum: max, default: fallback })),
  offset: Type.Optional(LaxInt({ minimum: 0, default: 0 })),
});

export const CustomSourceSchema = Type.Union([
  Type.Literal('custom_attrs_string'),
  Type.Literal('custom_attrs_int'),
  Type.Literal('custom_attrs_float'),
  Type.Literal('custom_attrs_bool'),
]);

export const AgentSpanValueRef = Type.Object({
  source: Type.Optional(
    Type.Union([Type.Literal('field'), Type.Literal('column'), Type.Literal('derived'), ...CustomSourceSchema.anyOf]),
  ),
  key: Type.String(),
});

export const AgentGroupByRef = Type.Object({
  source: Type.Optional(Type.Union([Type.Literal('field'), Type.Literal('column'), ...CustomSourceSchema.anyOf])),
  key: Type.String(),
  alias: Nullable(Type.String()),
});

export const AgentSpansQueryReq = Type.Object({
  project_id: ProjectId,
  query: Nullable(Query),
  started_after: Nullable(DateTimeIn()),
  started_before: Nullable(DateTimeIn()),
  group_by: Nullable(Type.Array(AgentGroupByRef)),
  measures: Type.Optional(Type.Array(FreeObject())),
  group_filters: Type.Optional(Type.Array(FreeObject())),
  group_distributions: Type.Optional(Type.Array(FreeObject(), { maxItems: 20 })),
  signal_filters: Nullable(FreeObject()),
  custom_attr_columns: Type.Optional(Type.Array(AgentSpanValueRef)),
  include_details: Type.Optional(LaxBool({ default: false })),
  include_costs: Type.Optional(LaxBool({ default: false })),
  sort_by: Nullable(Type.Array(SortTerm)),
  ...Page(10_000, 100),
});
export type AgentSpansQueryReq = Static<typeof AgentSpansQueryReq>;

export const AgentCustomAttrsSchemaReq = Type.Object({
  project_id: ProjectId,
  query: Nullable(Query),
  started_after: Nullable(DateTimeIn()),
  started_before: Nullable(DateTimeIn()),
  limit: Type.Optional(LaxInt({ minimum: 1, maximum: 2000, default: 200 })),
  offset: Type.Optional(LaxInt({ minimum: 0, default: 0 })),
});
export type AgentCustomAttrsSchemaReq = Static<typeof AgentCustomAttrsSchemaReq>;

export const AgentsQueryReq = Type.Object({
  project_id: ProjectId,
  filters: Nullable(Type.Object({ agent_name: Nullable(Type.String()) })),
  sort_by: Nullable(Type.Array(SortTerm)),
  include_costs: Type.Optional(LaxBool({ default: false })),
  ...Page(10_000, 100),
});
export type AgentsQueryReq = Static<typeof AgentsQueryReq>;

export const AgentVersionsQueryReq = Type.Object({
  project_id: ProjectId,
  agent_name: Type.String(),
  sort_by: Nullable(Type.Array(SortTerm)),
  include_costs: Type.Optional(LaxBool({ default: false })),
  ...Page(10_000, 100),
});
export type AgentVersionsQueryReq = Static<typeof AgentVersionsQueryReq>;

const Role = Type.Union(
  ['', 'user', 'assistant', 'system', 'tool', 'tool_call', 'tool_result'].map((r) => Type.Literal(r)),
);
export const AgentSearchReq = Type.Object({
  project_id: ProjectId,
  query: Type.Optional(Type.String({ default: '' })),
  trace_id: Nullable(Type.String()),
  conversation_id: Nullable(Type.String()),
  agent_name: Nullable(Type.String()),
  provider_name: Nullable(Type.String()),
  request_model: Nullable(Type.String()),
  roles: Nullable(Type.Array(Role)),
  started_after: Nullable(DateTimeIn()),
  started_before: Nullable(DateTimeIn()),
  truncate_content: Type.Optional(LaxBool({ default: true })),
  ...Page(1000, 20),
});
export type AgentSearchReq = Static<typeof AgentSearchReq>;

export const AgentTraceChatReq = Type.Object({
  project_id: ProjectId,
  trace_id: Type.String(),
  include_feedback: Type.Optional(LaxBool({ default: false })),
  include_model_tool_calls: Type.Optional(LaxBool({ default: false })),
});
export type AgentTraceChatReq = Static<typeof AgentTraceChatReq>;

export const AgentConversationChatReq = Type.Object({
  project_id: ProjectId,
  conversation_id: Type.String(),
  include_feedback: Type.Optional(LaxBool({ default: false })),
  include_model_tool_calls: Type.Optional(LaxBool({ default: false })),
  ...Page(50, 50),
});
export type AgentConversationChatReq = Static<typeof AgentConversationChatReq>;

/** §10: both bounds must carry an offset (checked in the service, answered as 422). */
export const AgentConversationSpansReq = Type.Object({
  project_id: ProjectId,
  conversation_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 10_000, default: [] })),
  started_after: Nullable(Type.String()),
  started_before: Nullable(Type.String()),
});
export type AgentConversationSpansReq = Static<typeof AgentConversationSpansReq>;

export const AgentSpanDiagnosticsReq = Type.Object({
  project_id: ProjectId,
  trace_id: Type.String(),
  span_id: Type.String(),
});
export type AgentSpanDiagnosticsReq = Static<typeof AgentSpanDiagnosticsReq>;

/** §2.7: all strings, three required. */
export const GenAISpanStartReq = Type.Object({
  project_id: ProjectId,
  trace_id: Type.String(),
  span_id: Type.String(),
  parent_span_id: Type.Optional(Type.String()),
  span_name: Type.Optional(Type.String()),
  operation_name: Type.Optional(Type.String()),
  agent_name: Type.Optional(Type.String()),
  request_model: Type.Optional(Type.String()),
  started_at: Type.Optional(Type.String()),
});
export type GenAISpanStartReq = Static<typeof GenAISpanStartReq>;

/** Every answer of this area: a JSON object built to the shapes of docs/spec/agents.md. */
export const AgentsRes = FreeObject();

const Aggregation = Type.Union(
  ['sum', 'avg', 'min', 'max', 'count', 'count_distinct', 'count_true', 'count_false'].map((a) => Type.Literal(a)),
);
export const AgentSpanStatsMetricSpec = Type.Object({
  alias: Type.String({ pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$' }),
  value_type: Type.Union(['datetime', 'number', 'boolean', 'string'].map((t) => Type.Literal(t))),
  value: AgentSpanValueRef,
  aggregations: Type.Optional(Type.Array(Aggregation, { uniqueItems: true })),
  percentiles: Type.Optional(Type.Array(Type.Number({ minimum: 0, maximum: 100 }), { uniqueItems: true })),
});

/** §6. */
export const AgentSpanStatsReq = Type.Object({
  project_id: ProjectId,
  start: DateTimeIn(),
  end: Nullable(DateTimeIn()),
  query: Nullable(Query),
  granularity: Nullable(LaxInt({ exclusiveMinimum: 0 })),
  timezone: Type.Optional(Type.String({ default: 'UTC' })),
  group_by: Type.Optional(Type.Array(AgentGroupByRef)),
  metrics: Type.Optional(Type.Array(AgentSpanStatsMetricSpec)),
  group_limit: Type.Optional(LaxInt({ minimum: 1, maximum: 1000, default: 50 })),
  bucket_by: Nullable(FreeObject()),
  group_filters: Type.Optional(Type.Array(FreeObject())),
  signal_filters: Nullable(FreeObject()),
});
export type AgentSpanStatsReq = Static<typeof AgentSpanStatsReq>;
