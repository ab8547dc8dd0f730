import { Type, type Static } from '@sinclair/typebox';
import { CallsFilter } from './calls.js';
import { Nullable, NullableLaxBool, strict } from './common.js';
import { Query, SortBy } from './query.js';

/** `POST /calls/export` (docs/export.md): the calls of a project as a file, filtered like `/calls/stream_query`. */
export const CallsExportReq = Type.Object(
  {
    project_id: Type.String(),
    filter: Nullable(CallsFilter),
    query: Nullable(Query),
    sort_by: Nullable(Type.Array(SortBy)),
    format: Type.Optional(Type.Union([Type.Literal('jsonl'), Type.Literal('csv')], { default: 'jsonl' })),
    include_feedback: NullableLaxBool({ description: 'Default true' }),
    include_costs: NullableLaxBool({ description: 'Default true' }),
  },
  strict,
);

export type CallsExportReq = Static<typeof CallsExportReq>;
