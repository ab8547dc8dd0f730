import type { Migration } from './migration.js';

/**
 * Entity admins: a member of an entity is an `admin` of it (may manage the entity's API keys over
 * HTTP, routes/keys.ts) or a plain `member`; existing rows become members. Migration 12 adds
 * `viewer` (read only); docs/roles-and-audit.md.
 */
const MEMBERSHIP_ROLE_SQL = `ALTER TABLE memberships ADD COLUMN role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member'));`;

export const migration: Migration = {
  id: 7,
  name: 'membership-role',
  sqlite: MEMBERSHIP_ROLE_SQL,
  postgres: MEMBERSHIP_ROLE_SQL,
};
