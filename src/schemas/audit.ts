import { Type, type Static } from '@sinclair/typebox';
import { AUDIT_ACTIONS } from '../store/audit-types.js';
import { ENTITY_ROLES } from '../domain/roles.js';
import { EntityName, LaxInt, Nullable, strict } from './common.js';

/**
 * The audit log and memberships over HTTP (routes/audit.ts; docs/roles-and-audit.md). Our choice:
 * Weave has no such API; the bodies follow the house style of snake_case fields.
 */

/** User names: 1 to 128 characters, no `/` (entities follow domain/project-name.ts, `EntityName`). */
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 128, pattern: '^[^/]+$', description });

export const Role = Type.Union(
  ENTITY_ROLES.map((r) => Type.Literal(r)),
  { description: 'admin: manages keys, roles and deletion; member: reads and writes; viewer: reads only.' },
);

export const AuditQuery = Type.Object(
  {
    entity: EntityName('The entity whose log to read (its admins and instance admins only).'),
    limit: Type.Optional(LaxInt({ description: 'Entries per page, 1 to 1000 (default 100).' })),
    before: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Continue after this entry id (`next_before`).' }),
    ),
    action: Type.Optional(Type.Union(AUDIT_ACTIONS.map((a) => Type.Literal(a)))),
  },
  strict,
);
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEntry = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  entity: Type.String(),
  user_id: Nullable(Type.String()),
  username: Nullable(Type.String({ description: 'Null when the operator acted through the CLI on the store.' })),
  key_id: Nullable(Type.String()),
  action: Type.String(),
  target: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditRes = Type.Object({
  entries: Type.Array(AuditEntry, { description: 'Newest first.' }),
  next_before: Nullable(Type.String({ description: 'Pass as `before` for the next page; null on the last.' })),
});
export type AuditRes = Static<typeof AuditRes>;

export const MembershipUpdateReq = Type.Object(
  {
    entity: EntityName('The entity.'),
    username: Name('A user who is a member of the entity.'),
    role: Role,
  },
  strict,
);
export type MembershipUpdateReq = Static<typeof MembershipUpdateReq>;

export const MembershipUpdateRes = Type.Object({
  entity: Type.String(),
  username: Type.String(),
  role: Role,
  previous_role: Role,
});
export type MembershipUpdateRes = Static<typeof MembershipUpdateRes>;

export const MembershipQueryReq = Type.Object({ entity: EntityName('The entity whose members to list.') }, strict);
export type MembershipQueryReq = Static<typeof MembershipQueryReq>;

export const MembershipQueryRes = Type.Object({
  members: Type.Array(Type.Object({ username: Type.String(), role: Role })),
});
export type MembershipQueryRes = Static<typeof MembershipQueryRes>;
