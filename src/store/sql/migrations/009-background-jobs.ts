import type { Migration } from './migration.js';

/**
 * The durable queue of background work other than training (docs/architecture.md, "Background
 * jobs"): server-side evaluations and call scoring (docs/spec/evaluations.md §5–§6). The lease
 * columns are those of `training_jobs` (owner, expiry, fencing token); the training-only columns and
 * the one-running-job-per-model index stay there. `attempts` counts leases: the sweeper re-queues a
 * job whose lease expired until `attempts` reaches `max_attempts`, then fails it.
 */
const POSTGRES = `
CREATE TABLE background_jobs (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  status text NOT NULL,
  input text NOT NULL,
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  error_message text,
  lease_owner text,
  lease_expires_at bigint,
  fencing_token bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX background_jobs_open ON background_jobs (project_id, status, created_at, id) WHERE status IN ('queued', 'running');
`;

export const migration: Migration = {
  id: 9,
  name: 'background-jobs',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', ''),
  postgres: POSTGRES,
};
