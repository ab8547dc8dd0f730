import type { Migration } from './migration.js';

/**
 * Read-only members and the audit log (docs/roles-and-audit.md). A membership's role may now also be
 * `viewer`. SQLite cannot change a CHECK constraint in place, so its `memberships` table is rebuilt
 * with the same columns and rows (nothing refers to it); PostgreSQL swaps the constraint.
 *
 * `audit_log` belongs to an entity, not to a project (a key or a role is an entity's, and a project
 * deletion must not delete its own record), so its key leads with `entity`. `id` is a UUIDv7, so
 * ordering by it within an entity is ordering by time.
 */
const AUDIT_LOG = `
CREATE TABLE audit_log (
  entity text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  at bigint NOT NULL,
  user_id text COLLATE "C",
  username text,
  key_id text,
  action text NOT NULL,
  target text,
  details text NOT NULL,
  PRIMARY KEY (entity, id)
);
CREATE INDEX audit_log_by_action ON audit_log (entity, action, id);
`;

const SQLITE_MEMBERSHIPS = `
CREATE TABLE memberships_v12 (
  user_id TEXT NOT NULL REFERENCES users(id),
  entity TEXT NOT NULL REFERENCES entities(name),
  role TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member', 'viewer')),
  PRIMARY KEY (user_id, entity)
);
INSERT INTO memberships_v12 (user_id, entity, role) SELECT user_id, entity, role FROM memberships;
DROP TABLE memberships;
ALTER TABLE memberships_v12 RENAME TO memberships;
`;

const POSTGRES_MEMBERSHIPS = `
ALTER TABLE memberships DROP CONSTRAINT IF EXISTS memberships_role_check;
ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK (role IN ('admin', 'member', 'viewer'));
`;

export const migration: Migration = {
  id: 11,
  name: 'viewer-role-and-audit',
  sqlite: [SQLITE_MEMBERSHIPS, AUDIT_LOG.replaceAll(' COLLATE "C"', '')],
  postgres: [POSTGRES_MEMBERSHIPS, AUDIT_LOG],
};
