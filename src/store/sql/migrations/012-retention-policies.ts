import type { Migration } from './migration.js';

/**
 * Retention (docs/export.md "Retention"): one policy per project, keep calls for `keep_days` days.
 * `next_run_at` is when the scheduler next queues an `apply_retention` job for it (claimed in the
 * same transaction as the job is queued, so one node queues each run); the `last_*` columns record
 * the last finished run for `GET …/retention`.
 */
const POSTGRES = `
CREATE TABLE retention_policies (
  project_id text COLLATE "C" NOT NULL,
  keep_days integer NOT NULL,
  updated_by text NOT NULL,
  updated_at bigint NOT NULL,
  next_run_at bigint NOT NULL,
  last_run_at bigint,
  last_cutoff bigint,
  last_deleted_calls bigint,
  PRIMARY KEY (project_id)
);
`;

export const migration: Migration = {
  id: 12,
  name: 'retention-policies',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', ''),
  postgres: POSTGRES,
};
