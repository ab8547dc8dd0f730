/** What a membership allows in its entity (docs/roles-and-audit.md): all, read and write, or read only. */
export const ENTITY_ROLES = ['admin', 'member', 'viewer'] as const;
export type EntityRole = (typeof ENTITY_ROLES)[number];

/** A membership with its role (memberships.role). */
export interface MembershipRecord {
  entity: string;
  role: EntityRole;
}
