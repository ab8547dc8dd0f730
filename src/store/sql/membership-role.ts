/**
 * Both stores' migration for entity admins: a member of an entity is an `admin` of it (may manage
 * the entity's API keys over HTTP, routes/keys.ts) or a plain `member`. Existing rows become members.
 * Migration 12 adds `viewer` (read only); docs/roles-and-audit.md.
 */
export const MEMBERSHIP_ROLE_SQL = `ALTER TABLE memberships ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member'));`;

/** What a membership allows in its entity (docs/roles-and-audit.md): all, read and write, or read only. */
export const ENTITY_ROLES = ['admin', 'member', 'viewer'] as const;
export type EntityRole = (typeof ENTITY_ROLES)[number];

/** A membership with its role (memberships.role). */
export interface MembershipRecord {
  entity: string;
  role: EntityRole;
}

/** Keys whose user is a member of the entity (`param`: the dialect's placeholder), newest first. */
export function keysOfEntityWhere(param: string): string {
  return `WHERE k.user_id IN (SELECT user_id FROM memberships WHERE entity = ${param}) ORDER BY k.created_at DESC, k.id DESC`;
}
