import { Type, type Static } from '@sinclair/typebox';
import { LaxBool, Nullable, NullableLaxBool, NullableLaxInt, strict } from './common.js';

/** Objects API models (docs/spec/objects.md §2–3). Names follow Weave's interface. */

/** The inner `obj` ignores unknown keys (docs/spec/objects.md §0); `val` may be any JSON, null included. */
export const ObjSchemaForInsert = Type.Object({
  project_id: Type.String(),
  object_id: Type.String(),
  val: Type.Unknown(),
  builtin_object_class: Nullable(Type.String()),
  set_base_object_class: Nullable(Type.String()),
  expected_digest: Nullable(Type.String()),
  wb_user_id: Nullable(Type.String()),
});
export type ObjSchemaForInsert = Static<typeof ObjSchemaForInsert>;

export const ObjCreateReq = Type.Object({ obj: ObjSchemaForInsert }, strict);
export type ObjCreateReq = Static<typeof ObjCreateReq>;
export const ObjCreateRes = Type.Object({ digest: Type.String(), object_id: Type.String() });

export const ObjSchema = Type.Object({
  project_id: Type.String(),
  object_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  deleted_at: Type.Union([Type.String(), Type.Null()]),
  digest: Type.String(),
  version_index: Type.Integer(),
  is_latest: Type.Integer(),
  kind: Type.String(),
  base_object_class: Type.Union([Type.String(), Type.Null()]),
  leaf_object_class: Type.Union([Type.String(), Type.Null()]),
  val: Type.Unknown(),
  wb_user_id: Type.Union([Type.String(), Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  tags: Type.Union([Type.Array(Type.String()), Type.Null()]),
  aliases: Type.Union([Type.Array(Type.String()), Type.Null()]),
});

export const ObjReadReq = Type.Object(
  {
    project_id: Type.String(),
    object_id: Type.String(),
    digest: Type.String(),
    metadata_only: Type.Optional(LaxBool({ default: false })),
    include_tags_and_aliases: Type.Optional(LaxBool({ default: false })),
  },
  strict,
);
export type ObjReadReq = Static<typeof ObjReadReq>;
export const ObjReadRes = Type.Object({ obj: ObjSchema });

export const ObjDeleteReq = Type.Object(
  { project_id: Type.String(), object_id: Type.String(), digests: Nullable(Type.Array(Type.String())) },
  strict,
);
export type ObjDeleteReq = Static<typeof ObjDeleteReq>;
export const ObjDeleteRes = Type.Object({
  num_deleted: Type.Integer(),
  deleted_versions: Type.Array(
    Type.Object({
      digest: Type.String(),
      base_object_class: Type.Union([Type.String(), Type.Null()]),
      leaf_object_class: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

const StringList = () => Nullable(Type.Array(Type.String()));

export const ObjectVersionFilter = Type.Object(
  {
    base_object_classes: StringList(),
    exclude_base_object_classes: StringList(),
    leaf_object_classes: StringList(),
    object_ids: StringList(),
    is_op: NullableLaxBool(),
    latest_only: NullableLaxBool(),
    tags: StringList(),
    aliases: StringList(),
  },
  strict,
);
export type ObjectVersionFilter = Static<typeof ObjectVersionFilter>;

export const ObjSortBy = Type.Object(
  { field: Type.String(), direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')]) },
  strict,
);

export const ObjQueryReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(ObjectVersionFilter),
    limit: NullableLaxInt(),
    offset: NullableLaxInt(),
    sort_by: Nullable(Type.Array(ObjSortBy)),
    metadata_only: Type.Optional(NullableLaxBool({ default: false })),
    include_storage_size: Type.Optional(NullableLaxBool({ default: false })),
    include_tags_and_aliases: Type.Optional(NullableLaxBool({ default: false })),
  },
  strict,
);
export type ObjQueryReq = Static<typeof ObjQueryReq>;
export const ObjQueryRes = Type.Object({ objs: Type.Array(ObjSchema) });

/** Tags and aliases (docs/spec/objects.md §3.5). */
export const ObjVersionParams = Type.Object({ object_id: Type.String(), digest: Type.String() });
export const ObjParams = Type.Object({ object_id: Type.String() });
export const ObjTagsBody = Type.Object({ project_id: Type.String(), tags: Type.Array(Type.String()) }, strict);
export type ObjTagsBody = Static<typeof ObjTagsBody>;
export const ObjSetAliasesBody = Type.Object(
  { project_id: Type.String(), digest: Type.String(), aliases: Type.Array(Type.String()) },
  strict,
);
export type ObjSetAliasesBody = Static<typeof ObjSetAliasesBody>;
export const ObjRemoveAliasesBody = Type.Object(
  { project_id: Type.String(), aliases: Type.Array(Type.String()) },
  strict,
);
export type ObjRemoveAliasesBody = Static<typeof ObjRemoveAliasesBody>;
export const ProjectQuery = Type.Object({ project_id: Type.String() });
export const TagsListRes = Type.Object({ tags: Type.Array(Type.String()) });
export const AliasesListRes = Type.Object({ aliases: Type.Array(Type.String()) });
