import type { Migration } from './migration.js';

/**
 * Training (docs/spec/training.md §4–§6): models, checkpoints, log history, the job queue and its events.
 * One text for both dialects: PostgreSQL compares ids by bytes (`COLLATE "C"`) and stores checkpoint
 * bytes as bytea; SQLite compares bytes by default and stores BLOBs. `project_id` leads every key
 * and index except the id directory (path ids name no project) and the worker list (not tenant data).
 */
const POSTGRES = `
CREATE TABLE training_ids (
  id text COLLATE "C" PRIMARY KEY,
  project_id text COLLATE "C" NOT NULL,
  kind text NOT NULL
);
CREATE TABLE training_models (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  entity text COLLATE "C" NOT NULL,
  project text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  base_model text NOT NULL,
  run_id text,
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  deleted_at bigint,
  last_step integer NOT NULL DEFAULT 0,
  trainer text,
  PRIMARY KEY (project_id, id)
);
CREATE UNIQUE INDEX training_models_live_name ON training_models (project_id, name) WHERE deleted_at IS NULL;
CREATE TABLE training_checkpoints (
  project_id text COLLATE "C" NOT NULL,
  model_id text COLLATE "C" NOT NULL,
  step integer NOT NULL,
  id text COLLATE "C" NOT NULL,
  metrics text NOT NULL,
  trainer text,
  data bytea,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, model_id, step)
);
CREATE UNIQUE INDEX training_checkpoints_id ON training_checkpoints (project_id, model_id, id);
CREATE TABLE training_log_history (
  project_id text COLLATE "C" NOT NULL,
  model_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  step integer NOT NULL,
  split text NOT NULL,
  metrics text NOT NULL,
  trajectory_groups text NOT NULL,
  recorded_at bigint NOT NULL,
  PRIMARY KEY (project_id, model_id, id)
);
CREATE TABLE training_jobs (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  model_id text COLLATE "C" NOT NULL,
  kind text NOT NULL,
  status text NOT NULL,
  base_model text NOT NULL,
  created_by text NOT NULL,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  parent_step integer,
  step integer,
  checkpoint_id text,
  num_sequences integer,
  num_gradient_steps integer NOT NULL DEFAULT 0,
  error_message text,
  input text NOT NULL,
  trainer text,
  lease_owner text,
  lease_expires_at bigint,
  fencing_token bigint NOT NULL DEFAULT 0,
  metrics text,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX training_jobs_open ON training_jobs (project_id, model_id, created_at, id) WHERE status IN ('queued', 'running');
CREATE UNIQUE INDEX training_jobs_one_running ON training_jobs (project_id, model_id) WHERE status = 'running';
CREATE TABLE training_events (
  project_id text COLLATE "C" NOT NULL,
  job_id text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  id text COLLATE "C" NOT NULL,
  type text NOT NULL,
  data text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, job_id, seq)
);
CREATE UNIQUE INDEX training_events_id ON training_events (project_id, job_id, id);
CREATE UNIQUE INDEX training_events_one_terminal ON training_events (project_id, job_id) WHERE type IN ('training_ended', 'training_failed');
CREATE TABLE training_workers (
  worker_id text COLLATE "C" PRIMARY KEY,
  base_models text NOT NULL,
  last_seen bigint NOT NULL
);
`;

export const migration: Migration = {
  id: 5,
  name: 'training',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', '').replaceAll(' bytea', ' BLOB'),
  postgres: POSTGRES,
};
