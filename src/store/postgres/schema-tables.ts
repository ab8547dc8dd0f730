/**
 * PostgreSQL tables of migration 1: the same tables as the SQLite schema (migrations 0 and 1
 * there), with PostgreSQL types. Text columns use the "C" collation so comparisons, sorting and
 * prefix ranges go by code point, exactly as SQLite's BINARY collation does. JSON columns of calls
 * are JSONB; `object_versions.val` stays TEXT because it is the canonical text a digest was computed
 * from (objects spec §1.2) and must come back byte for byte. `project_id` leads every key and index.
 */
export const TABLES_SQL = `
CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  username text COLLATE "C" NOT NULL UNIQUE,
  default_entity text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE entities (
  name text COLLATE "C" PRIMARY KEY,
  created_at bigint NOT NULL
);
CREATE TABLE memberships (
  user_id text COLLATE "C" NOT NULL REFERENCES users(id),
  entity text COLLATE "C" NOT NULL REFERENCES entities(name),
  PRIMARY KEY (user_id, entity)
);
CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id),
  key_hash text COLLATE "C" NOT NULL UNIQUE,
  prefix text COLLATE "C" NOT NULL,
  is_admin boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  revoked_at bigint
);
CREATE TABLE projects (
  project_id text COLLATE "C" PRIMARY KEY,
  entity text COLLATE "C" NOT NULL,
  created_by text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX projects_by_entity ON projects (entity);

CREATE TABLE calls (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  -- insertion order for sort_by [] (SQLite uses its rowid)
  seq bigint GENERATED ALWAYS AS IDENTITY,
  op_name text COLLATE "C",
  op_display_name text COLLATE "C",
  display_name text COLLATE "C",
  trace_id text COLLATE "C",
  parent_id text COLLATE "C",
  thread_id text COLLATE "C",
  turn_id text COLLATE "C",
  started_at bigint,
  attributes jsonb,
  inputs jsonb,
  otel_dump jsonb,
  wb_user_id text COLLATE "C",
  wb_run_id text COLLATE "C",
  wb_run_step bigint,
  ended_at bigint,
  exception text COLLATE "C",
  output jsonb,
  summary jsonb,
  wb_run_step_end bigint,
  deleted_at bigint,
  PRIMARY KEY (project_id, id)
) WITH (fillfactor = 90);
-- The listing order: (started_at desc, id desc) forwards, the default (asc, asc) backwards.
CREATE INDEX calls_by_start ON calls (project_id, started_at DESC, id DESC)
  WHERE started_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX calls_roots_by_start ON calls (project_id, started_at DESC, id DESC)
  WHERE parent_id IS NULL AND started_at IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX calls_by_op ON calls (project_id, op_name, started_at DESC, id DESC);
CREATE INDEX calls_by_trace ON calls (project_id, trace_id);
CREATE INDEX calls_by_parent ON calls (project_id, parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX calls_by_thread ON calls (project_id, thread_id, started_at DESC) WHERE thread_id IS NOT NULL;
CREATE INDEX calls_by_turn ON calls (project_id, turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX calls_by_user ON calls (project_id, wb_user_id);
CREATE INDEX calls_by_run ON calls (project_id, wb_run_id) WHERE wb_run_id IS NOT NULL;

CREATE TABLE object_versions (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  version_index integer NOT NULL,
  digest text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  base_object_class text COLLATE "C",
  leaf_object_class text COLLATE "C",
  val text NOT NULL,
  size_bytes bigint NOT NULL,
  wb_user_id text COLLATE "C",
  created_at bigint NOT NULL,
  deleted_at bigint,
  is_latest smallint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, object_id, version_index)
);
CREATE UNIQUE INDEX object_versions_live_digest ON object_versions (project_id, object_id, digest) WHERE deleted_at IS NULL;
CREATE INDEX object_versions_by_digest ON object_versions (project_id, digest);
CREATE INDEX object_versions_by_created ON object_versions (project_id, created_at, version_index) WHERE deleted_at IS NULL;
CREATE INDEX object_versions_latest ON object_versions (project_id, object_id) WHERE is_latest = 1;
CREATE TABLE object_tags (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  tag text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, object_id, digest, tag)
);
CREATE INDEX object_tags_by_tag ON object_tags (project_id, tag);
CREATE TABLE object_aliases (
  project_id text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  alias text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, object_id, alias)
);
CREATE INDEX object_aliases_by_digest ON object_aliases (project_id, object_id, digest);
CREATE INDEX object_aliases_by_alias ON object_aliases (project_id, alias);

CREATE TABLE files (
  project_id text COLLATE "C" NOT NULL,
  digest text COLLATE "C" NOT NULL,
  blob_id text COLLATE "C" NOT NULL,
  name text,
  size_bytes bigint NOT NULL,
  chunk_count integer NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (project_id, digest)
);
CREATE TABLE file_chunks (
  project_id text COLLATE "C" NOT NULL,
  blob_id text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (project_id, blob_id, seq)
);
-- chunks are mostly compressed or random bytes: store them out of line without trying to compress
ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
`;
