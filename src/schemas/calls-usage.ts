import { Type, type Static } from '@sinclair/typebox';
import { CallsFilter } from './calls.js';
import { LaxBool, LaxInt, Nullable, strict } from './common.js';
import { Query } from './query.js';

/** `/calls/usage` and `/trace/usage` models (docs/spec/calls.md §4.10, §4.11). */

const NullableNumber = () => Type.Union([Type.Number(), Type.Null()]);

export const LLMAggregatedUsage = Type.Object({
  requests: Type.Integer(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cache_read_input_tokens: Type.Integer(),
  cache_creation_input_tokens: Type.Integer(),
  prompt_tokens_total_cost: NullableNumber(),
  completion_tokens_total_cost: NullableNumber(),
  cache_read_input_tokens_total_cost: NullableNumber(),
  cache_creation_input_tokens_total_cost: NullableNumber(),
});

/** call id → model → usage. */
const CallUsageMap = Type.Record(Type.String(), Type.Record(Type.String(), LLMAggregatedUsage));

export const CallsUsageReq = Type.Object(
  {
    project_id: Type.String(),
    call_ids: Type.Array(Type.String()),
    include_costs: Type.Optional(LaxBool()),
    limit: Type.Optional(LaxInt()),
  },
  strict,
);

export const TraceUsageReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(CallsFilter),
    query: Nullable(Query),
    include_costs: Type.Optional(LaxBool()),
    limit: Type.Optional(LaxInt()),
  },
  strict,
);

export const CallsUsageRes = Type.Object({
  call_usage: CallUsageMap,
  unfinished_call_ids: Type.Array(Type.String()),
  /** Our addition: with include_costs, the models that had no price (their 0.0 costs are not real prices). */
  unpriced_models: Type.Optional(Type.Array(Type.String())),
});
export const TraceUsageRes = CallsUsageRes;

export type LLMAggregatedUsage = Static<typeof LLMAggregatedUsage>;
export type CallsUsageReq = Static<typeof CallsUsageReq>;
export type TraceUsageReq = Static<typeof TraceUsageReq>;
export type CallsUsageRes = Static<typeof CallsUsageRes>;
