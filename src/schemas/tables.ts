import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, LaxBool, Nullable, NullableLaxInt, strict } from './common.js';

/** Tables API models (docs/spec/objects.md §4). Names follow Weave's interface. */

/** The inner `table` ignores unknown keys (docs/spec/objects.md §0); rows must be JSON objects. */
export const TableSchemaForInsert = Type.Object({
  project_id: Type.String(),
  rows: Type.Array(FreeObject()),
  expected_digest: Nullable(Type.String()),
});

export const TableCreateReq = Type.Object({ table: TableSchemaForInsert }, strict);
export type TableCreateReq = Static<typeof TableCreateReq>;
export const TableCreateRes = Type.Object({ digest: Type.String(), row_digests: Type.Array(Type.String()) });

export const TableCreateFromDigestsReq = Type.Object(
  { project_id: Type.String(), row_digests: Type.Array(Type.String()), expected_digest: Nullable(Type.String()) },
  strict,
);
export type TableCreateFromDigestsReq = Static<typeof TableCreateFromDigestsReq>;
export const TableCreateFromDigestsRes = Type.Object({ digest: Type.String() });

/** Update specs ignore unknown keys (docs/spec/objects.md §0); each names exactly one operation. */
const AppendSpec = Type.Object({ append: Type.Object({ row: FreeObject() }) });
const PopSpec = Type.Object({ pop: Type.Object({ index: Type.Integer() }) });
const InsertSpec = Type.Object({ insert: Type.Object({ index: Type.Integer(), row: FreeObject() }) });
export const TableUpdateSpec = Type.Union([AppendSpec, PopSpec, InsertSpec]);
export type TableUpdateSpec = Static<typeof TableUpdateSpec>;

export const TableUpdateReq = Type.Object(
  { project_id: Type.String(), base_digest: Type.String(), updates: Type.Array(TableUpdateSpec) },
  strict,
);
export type TableUpdateReq = Static<typeof TableUpdateReq>;
export const TableUpdateRes = Type.Object({ digest: Type.String(), updated_row_digests: Type.Array(Type.String()) });

export const TableSortBy = Type.Object(
  { field: Type.String(), direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) },
  strict,
);

export const TableQueryReq = Type.Object(
  {
    project_id: Type.String(),
    digest: Type.String(),
    filter: Nullable(Type.Object({ row_digests: Nullable(Type.Array(Type.String())) }, strict)),
    limit: NullableLaxInt(),
    offset: NullableLaxInt(),
    sort_by: Nullable(Type.Array(TableSortBy)),
  },
  strict,
);
export type TableQueryReq = Static<typeof TableQueryReq>;
export const TableRowSchema = Type.Object({
  digest: Type.String(),
  val: Type.Unknown(),
  original_index: Type.Integer(),
});
export const TableQueryRes = Type.Object({ rows: Type.Array(TableRowSchema) });

export const TableQueryStatsReq = Type.Object({ project_id: Type.String(), digest: Type.String() }, strict);
export type TableQueryStatsReq = Static<typeof TableQueryStatsReq>;
export const TableQueryStatsRes = Type.Object({ count: Type.Integer() });

export const TableQueryStatsBatchReq = Type.Object(
  {
    project_id: Type.String(),
    digests: Type.Optional(Type.Array(Type.String(), { default: [] })),
    include_storage_size: Type.Optional(LaxBool({ default: false })),
  },
  strict,
);
export type TableQueryStatsBatchReq = Static<typeof TableQueryStatsBatchReq>;
export const TableQueryStatsBatchRes = Type.Object({
  tables: Type.Array(
    Type.Object({
      count: Type.Integer(),
      digest: Type.String(),
      storage_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});

/** `/refs/read_batch` (docs/spec/objects.md §5.2). */
export const RefsReadBatchReq = Type.Object({ refs: Type.Array(Type.String()) }, strict);
export type RefsReadBatchReq = Static<typeof RefsReadBatchReq>;
export const RefsReadBatchRes = Type.Object({ vals: Type.Array(Type.Unknown()) });
