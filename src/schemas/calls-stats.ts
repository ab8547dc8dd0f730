import { Type, type Static, type TUnsafe } from '@sinclair/typebox';
import { AGGREGATIONS, type Aggregation } from '../domain/metric-stats.js';
import { CallsFilter } from './calls.js';
import { DateTimeIn, FreeObject, Nullable, NullableLaxInt, strict } from './common.js';

/** `/calls/stats` models (docs/spec/calls.md §4.9). */

export const USAGE_METRICS = [
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'input_cost',
  'output_cost',
  'total_cost',
] as const;
export const CALL_METRICS = ['latency_ms', 'call_count', 'error_count'] as const;
/** Our extension (docs/spec/calls.md §4.9 "Grouping"): dimensions buckets may be split by. */
export const GROUP_DIMENSIONS = ['op', 'status', 'model'] as const;

export type UsageMetric = (typeof USAGE_METRICS)[number];
export type CallMetric = (typeof CALL_METRICS)[number];
export type GroupDimension = (typeof GROUP_DIMENSIONS)[number];

/** A string enum as a plain `enum` keyword, so a bad value answers `literal_error` rather than a union failure. */
const StringEnum = <T extends string>(values: readonly T[]): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values] });

/** Percentile bounds are checked by the service: out of range is a 400, not a 422 (§4.9). */
const specFields = {
  aggregations: Nullable(Type.Array(StringEnum<Aggregation>(AGGREGATIONS))),
  percentiles: Nullable(Type.Array(Type.Number())),
};

export const UsageMetricSpec = Type.Object({ metric: StringEnum<UsageMetric>(USAGE_METRICS), ...specFields }, strict);
export const CallMetricSpec = Type.Object({ metric: StringEnum<CallMetric>(CALL_METRICS), ...specFields }, strict);

export const CallStatsReq = Type.Object(
  {
    project_id: Type.String(),
    start: DateTimeIn(),
    end: Nullable(DateTimeIn()),
    granularity: NullableLaxInt(),
    usage_metrics: Nullable(Type.Array(UsageMetricSpec)),
    call_metrics: Nullable(Type.Array(CallMetricSpec)),
    filter: Nullable(CallsFilter),
    timezone: Type.Optional(Type.String()),
    /** Our extension: split every bucket by one or two dimensions (docs/spec/calls.md §4.9 "Grouping"). */
    group_by: Type.Optional(Nullable(Type.Array(StringEnum<GroupDimension>(GROUP_DIMENSIONS), { maxItems: 2 }))),
  },
  strict,
);

export const CallStatsRes = Type.Object({
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  granularity: Type.Integer(),
  timezone: Type.String(),
  usage_buckets: Type.Array(FreeObject()),
  call_buckets: Type.Array(FreeObject()),
});

export type UsageMetricSpec = Static<typeof UsageMetricSpec>;
export type CallMetricSpec = Static<typeof CallMetricSpec>;
export type CallStatsReq = Static<typeof CallStatsReq>;
export type CallStatsRes = Static<typeof CallStatsRes>;
