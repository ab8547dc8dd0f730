/**
 * SQLite schema, one entry per version. Applied in order inside a transaction; the applied
 * version lives in `PRAGMA user_version`. `project_id` leads every key and index.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
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
];
