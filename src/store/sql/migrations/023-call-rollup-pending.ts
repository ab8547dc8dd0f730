import type { Migration } from './migration.js';

/**
 * PostgreSQL's call writers append the roll-up changes of a write instead of upserting the
 * roll-up rows (docs/call-rollups.md "PostgreSQL: pending changes"): one row per project and write,
 * holding the write's merged sums and histogram counts as JSON arrays (in the column order of
 * call_rollups and call_rollup_latency), committed with the calls. A background fold adds them to
 * `call_rollups` / `call_rollup_latency` and deletes them in one statement; readers add the rows not
 * folded yet, so every answer stays exact. The JSON is stored uncompressed (`EXTERNAL`): it is
 * written once and read once. SQLite's single writer keeps upserting the roll-up rows.
 */
export const migration: Migration = {
  id: 23,
  name: 'call-rollup-pending',
  sqlite: [],
  postgres: String.raw`
CREATE TABLE call_rollup_pending (
  project_id text COLLATE "C" NOT NULL,
  seq bigserial NOT NULL,
  stats text NOT NULL,
  hist text NOT NULL,
  PRIMARY KEY (project_id, seq)
);
ALTER TABLE call_rollup_pending ALTER COLUMN stats SET STORAGE EXTERNAL, ALTER COLUMN hist SET STORAGE EXTERNAL;
`,
};
