import { Type, type Static } from '@sinclair/typebox';
import { Nullable, strict } from './common.js';

/** Web UI: browser sessions, the project list and the calls live tail. */

export const SessionCreateReq = Type.Object(
  { api_key: Type.String({ minLength: 1, description: 'An API key; it is never put in the cookie' }) },
  strict,
);
export type SessionCreateReq = Static<typeof SessionCreateReq>;

export const SessionRes = Type.Object({
  user: Type.Object({ id: Type.String(), username: Type.String() }),
  entities: Type.Array(Type.String(), { description: 'Entities the signed-in user belongs to, sorted' }),
  writable_entities: Type.Array(Type.String(), {
    description: 'Entities where the user may write (member or admin, not viewer), sorted',
  }),
  instance_admin: Type.Boolean({ description: 'An instance admin key: every entity, read and write' }),
});

export const ProjectListItem = Type.Object({
  project_id: Type.String({ description: '"entity/name"' }),
  entity: Type.String(),
  name: Type.String(),
  created_at: Nullable(Type.String({ format: 'date-time' })),
  last_call_at: Nullable(Type.String({ format: 'date-time', description: 'Latest start time of any call' })),
  call_count: Nullable(Type.Integer({ description: 'Not counted yet (always null): counting scans every call' })),
});

export const ProjectListRes = Type.Object({ projects: Type.Array(ProjectListItem) });

export const LiveTailQuery = Type.Object(
  {
    project_id: Type.String({ description: '"entity/project"' }),
    filter: Type.Optional(Type.String({ description: 'JSON of a CallsFilter (as /calls/stream_query takes it)' })),
    query: Type.Optional(Type.String({ description: 'JSON of a Query ({"$expr": …})' })),
  },
  strict,
);
export type LiveTailQuery = Static<typeof LiveTailQuery>;
