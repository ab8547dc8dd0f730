import type { Migration } from './migration.js';

/**
 * Online monitors (docs/monitors.md): `monitor_cursors` holds, per Monitor object, whether its
 * latest version is active, the requester its scoring runs as, and how far it has read the project's
 * call write order (`calls.change_seq`, then id), so a backlog is worked off after a restart;
 * `scan_job_id` is the background job scanning it now (one open scan per monitor, across nodes).
 * `monitor_scores` is the at-most-once key: a (monitor, call) pair is sampled in once, `pending`
 * until its scorers' feedback is written, then `scored`.
 */
const POSTGRES = `
CREATE TABLE monitor_cursors (
  project_id text COLLATE "C" NOT NULL,
  monitor_id text COLLATE "C" NOT NULL,
  active integer NOT NULL,
  caller text NOT NULL,
  cursor_seq bigint NOT NULL,
  cursor_id text COLLATE "C" NOT NULL,
  scan_job_id text,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, monitor_id)
);
CREATE TABLE monitor_scores (
  project_id text COLLATE "C" NOT NULL,
  monitor_id text COLLATE "C" NOT NULL,
  call_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  sampled_at bigint NOT NULL,
  scored_at bigint,
  PRIMARY KEY (project_id, monitor_id, call_id)
);
CREATE INDEX monitor_scores_pending ON monitor_scores (project_id, monitor_id, sampled_at, call_id) WHERE status = 'pending';
`;

export const migration: Migration = {
  id: 10,
  name: 'monitors',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', ''),
  postgres: POSTGRES,
};
