import { POSTGRES_FUNCTIONS_SQL } from './postgres-functions.js';
import type { Migration } from './migration.js';

/**
 * Users, entities, memberships, API keys, projects and calls. PostgreSQL first creates the SQL
 * functions its dialect calls (postgres-functions.ts). Its text columns use the "C" collation so
 * comparisons, sorting and prefix ranges go by code point as SQLite's BINARY collation does; call
 * JSON is JSONB there.
 */
export const migration: Migration = {
  id: 1,
  name: 'auth-and-calls',
  sqlite: String.raw`
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    default_entity TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE entities (
    name TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE memberships (
    user_id TEXT NOT NULL REFERENCES users(id),
    entity TEXT NOT NULL REFERENCES entities(name),
    PRIMARY KEY (user_id, entity)
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE TABLE projects (
    project_id TEXT PRIMARY KEY,
    entity TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE calls (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    op_name TEXT,
    op_display_name TEXT,
    display_name TEXT,
    trace_id TEXT,
    parent_id TEXT,
    thread_id TEXT,
    turn_id TEXT,
    started_at INTEGER,
    attributes TEXT,
    inputs TEXT,
    otel_dump TEXT,
    wb_user_id TEXT,
    wb_run_id TEXT,
    wb_run_step INTEGER,
    ended_at INTEGER,
    exception TEXT,
    output TEXT,
    summary TEXT,
    wb_run_step_end INTEGER,
    deleted_at INTEGER,
    PRIMARY KEY (project_id, id)
  );
  CREATE INDEX calls_by_start ON calls (project_id, started_at, id);
  CREATE INDEX calls_by_op ON calls (project_id, op_name, started_at);
  CREATE INDEX calls_by_trace ON calls (project_id, trace_id);
  CREATE INDEX calls_by_parent ON calls (project_id, parent_id) WHERE parent_id IS NOT NULL;
  CREATE INDEX calls_by_thread ON calls (project_id, thread_id) WHERE thread_id IS NOT NULL;
  `,
  postgres: [
    POSTGRES_FUNCTIONS_SQL,
    String.raw`

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
`,
  ],
};
