import { Type, type Static } from '@sinclair/typebox';
import { DateTimeIn, Nullable, NullableLaxInt, strict } from './common.js';
import { SortBy } from './query.js';

/** `/threads/stream_query` models (docs/spec/calls.md §4.12). */

export const ThreadsQueryFilter = Type.Object(
  {
    after_datetime: Nullable(DateTimeIn()),
    before_datetime: Nullable(DateTimeIn()),
    thread_ids: Nullable(Type.Array(Type.String())),
  },
  strict,
);

export const ThreadsQueryReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(ThreadsQueryFilter),
    limit: NullableLaxInt(),
    offset: NullableLaxInt(),
    sort_by: Nullable(Type.Array(SortBy)),
  },
  strict,
);

/** One JSON line of the response. */
export const ThreadSchema = Type.Object({
  thread_id: Type.String(),
  turn_count: Type.Integer(),
  start_time: Type.String({ format: 'date-time' }),
  last_updated: Type.String({ format: 'date-time' }),
  first_turn_id: Type.Union([Type.String(), Type.Null()]),
  last_turn_id: Type.Union([Type.String(), Type.Null()]),
  p50_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
  p99_turn_duration_ms: Type.Union([Type.Number(), Type.Null()]),
});

export type ThreadsQueryFilter = Static<typeof ThreadsQueryFilter>;
export type ThreadsQueryReq = Static<typeof ThreadsQueryReq>;
export type ThreadSchema = Static<typeof ThreadSchema>;
