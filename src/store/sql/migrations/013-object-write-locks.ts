import type { Migration } from './migration.js';

/**
 * PostgreSQL's per-object write lock as a row (postgres/transaction.ts `lockObject`): a row lock
 * holds across every node of a Citus cluster, where an advisory lock only holds on the node that
 * takes it. One row per object ever written, keyed by project like the objects themselves. SQLite
 * has one writer and never locks it; the table exists there too so that both stores list the same
 * per-project tables (project deletion, export).
 */
const TABLE = `CREATE TABLE object_write_locks (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, object_id)
);`;

export const migration: Migration = {
  id: 13,
  name: 'object-write-locks',
  sqlite: TABLE.replaceAll(' COLLATE "C"', ''),
  postgres: TABLE,
};
