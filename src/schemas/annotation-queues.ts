import { Type, type Static } from '@sinclair/typebox';
import { LaxBool, LaxInt, Nullable, strict } from './common.js';

/** Annotation queues (docs/spec/otel-service-queues.md §D). */

const SortBy = Nullable(
  Type.Array(
    Type.Object({ field: Type.String(), direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) }, strict),
  ),
);
const Page = { limit: Nullable(LaxInt({ minimum: 0 })), offset: Nullable(LaxInt({ minimum: 0 })) };

export const QueueCreateReq = Type.Object(
  {
    project_id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    scorer_refs: Type.Array(Type.String()),
  },
  strict,
);
export type QueueCreateReq = Static<typeof QueueCreateReq>;

export const QueueQueryReq = Type.Object(
  { project_id: Type.String(), name: Nullable(Type.String()), sort_by: SortBy, ...Page },
  strict,
);
export type QueueQueryReq = Static<typeof QueueQueryReq>;

export const QueueStatsReq = Type.Object({ project_id: Type.String(), queue_ids: Type.Array(Type.String()) }, strict);

export const QueueParams = Type.Object({ queue_id: Type.String() });
export const ItemParams = Type.Object({ queue_id: Type.String(), item_id: Type.String() });
export const ProjectQuery = Type.Object({ project_id: Type.String() });

export const QueueUpdateReq = Type.Object(
  {
    project_id: Type.String(),
    name: Nullable(Type.String()),
    description: Nullable(Type.String()),
    scorer_refs: Nullable(Type.Array(Type.String())),
  },
  strict,
);
export type QueueUpdateReq = Static<typeof QueueUpdateReq>;

export const ItemsAddReq = Type.Object(
  { project_id: Type.String(), call_ids: Type.Array(Type.String()), display_fields: Type.Array(Type.String()) },
  strict,
);
export type ItemsAddReq = Static<typeof ItemsAddReq>;

export const ItemsQueryReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(
      Type.Object(
        {
          id: Nullable(Type.String()),
          call_id: Nullable(Type.String()),
          call_op_name: Nullable(Type.String()),
          call_trace_id: Nullable(Type.String()),
          added_by: Nullable(Type.String()),
          annotation_states: Nullable(Type.Array(Type.String())),
        },
        strict,
      ),
    ),
    sort_by: SortBy,
    ...Page,
    include_position: Nullable(LaxBool()),
  },
  strict,
);
export type ItemsQueryReq = Static<typeof ItemsQueryReq>;

export const ProgressReq = Type.Object({ project_id: Type.String(), annotation_state: Type.String() }, strict);
export type ProgressReq = Static<typeof ProgressReq>;

export const QueueSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  scorer_refs: Type.Array(Type.String()),
  created_at: Type.String(),
  created_by: Type.String(),
  updated_at: Type.String(),
  deleted_at: Type.Union([Type.String(), Type.Null()]),
});

export const ItemSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  queue_id: Type.String(),
  call_id: Type.String(),
  call_started_at: Type.String(),
  call_ended_at: Type.Union([Type.String(), Type.Null()]),
  call_op_name: Type.String(),
  call_trace_id: Type.String(),
  display_fields: Type.Array(Type.String()),
  added_by: Type.Union([Type.String(), Type.Null()]),
  annotation_state: Type.String(),
  annotator_user_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  created_by: Type.String(),
  updated_at: Type.String(),
  deleted_at: Type.Union([Type.String(), Type.Null()]),
  position_in_queue: Type.Union([Type.Integer(), Type.Null()]),
});

export const QueueCreateRes = Type.Object({ id: Type.String() });
export const QueueRes = Type.Object({ queue: QueueSchema });
export const QueueStatsRes = Type.Object({
  stats: Type.Array(
    Type.Object({ queue_id: Type.String(), total_items: Type.Integer(), completed_items: Type.Integer() }),
  ),
});
export const ItemsAddRes = Type.Object({ added_count: Type.Integer(), duplicates: Type.Integer() });
export const ItemsQueryRes = Type.Object({ items: Type.Array(ItemSchema) });
export const ItemRes = Type.Object({ item: ItemSchema });
