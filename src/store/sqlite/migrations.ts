import { annotationTablesSql } from '../sql/annotation-schema.js';
import { trainingTablesSql } from '../sql/training-schema.js';
import { uiTablesSql } from '../sql/ui-schema.js';

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
  // objects with versions, tags and aliases; files stored in chunks (objects spec §2, §6)
  `
  CREATE TABLE object_versions (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    version_index INTEGER NOT NULL,
    digest TEXT NOT NULL,
    kind TEXT NOT NULL,
    base_object_class TEXT,
    leaf_object_class TEXT,
    val TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    wb_user_id TEXT,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER,
    is_latest INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, object_id, version_index)
  );
  CREATE UNIQUE INDEX object_versions_live_digest ON object_versions (project_id, object_id, digest) WHERE deleted_at IS NULL;
  CREATE INDEX object_versions_by_digest ON object_versions (project_id, digest);
  CREATE INDEX object_versions_by_created ON object_versions (project_id, created_at, version_index) WHERE deleted_at IS NULL;
  CREATE INDEX object_versions_latest ON object_versions (project_id, object_id) WHERE is_latest = 1;
  CREATE TABLE object_tags (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    tag TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, object_id, digest, tag)
  );
  CREATE INDEX object_tags_by_tag ON object_tags (project_id, tag);
  CREATE TABLE object_aliases (
    project_id TEXT NOT NULL,
    object_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    digest TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, object_id, alias)
  );
  CREATE INDEX object_aliases_by_digest ON object_aliases (project_id, object_id, digest);
  CREATE INDEX object_aliases_by_alias ON object_aliases (project_id, alias);
  CREATE TABLE files (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    blob_id TEXT NOT NULL,
    name TEXT,
    size_bytes INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  );
  CREATE TABLE file_chunks (
    project_id TEXT NOT NULL,
    blob_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (project_id, blob_id, seq)
  );
  `,
  // feedback (objects spec §7) and project LLM prices (objects spec §8)
  `
  CREATE TABLE feedback (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    weave_ref TEXT NOT NULL,
    wb_user_id TEXT NOT NULL,
    creator TEXT,
    created_at INTEGER NOT NULL,
    feedback_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    annotation_ref TEXT,
    runnable_ref TEXT,
    call_ref TEXT,
    trigger_ref TEXT,
    queue_id TEXT,
    scorer_tags TEXT NOT NULL,
    scorer_tag_reasons TEXT NOT NULL,
    scorer_tag_confidences TEXT NOT NULL,
    scorer_ratings TEXT NOT NULL,
    scorer_rating_reasons TEXT NOT NULL,
    scorer_rating_confidences TEXT NOT NULL,
    span_agent_name TEXT NOT NULL,
    span_agent_version TEXT NOT NULL,
    span_status_code TEXT NOT NULL,
    span_conversation_id TEXT NOT NULL,
    span_trace_id TEXT NOT NULL,
    scorer_trace_id TEXT NOT NULL,
    PRIMARY KEY (project_id, id)
  );
  CREATE INDEX feedback_by_ref ON feedback (project_id, weave_ref);
  CREATE INDEX feedback_by_created ON feedback (project_id, created_at);
  CREATE TABLE llm_token_prices (
    project_id TEXT NOT NULL,
    id TEXT NOT NULL,
    pricing_level TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    llm_id TEXT NOT NULL,
    effective_date INTEGER NOT NULL,
    prompt_token_cost REAL NOT NULL,
    completion_token_cost REAL NOT NULL,
    cache_read_input_token_cost REAL NOT NULL,
    cache_creation_input_token_cost REAL NOT NULL,
    prompt_token_cost_unit TEXT NOT NULL,
    completion_token_cost_unit TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, id)
  );
  CREATE INDEX llm_token_prices_by_model ON llm_token_prices (project_id, llm_id, effective_date);
  `,
  // tables (objects spec §4): row bodies once per (project, row digest), tables as ordered row digests
  `
  CREATE TABLE table_rows (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    val TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  ) WITHOUT ROWID;
  CREATE TABLE table_digests (
    project_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, digest)
  ) WITHOUT ROWID;
  CREATE TABLE table_entries (
    project_id TEXT NOT NULL,
    table_digest TEXT NOT NULL,
    pos INTEGER NOT NULL,
    row_digest TEXT NOT NULL,
    PRIMARY KEY (project_id, table_digest, pos)
  ) WITHOUT ROWID;
  `,
  // training (training spec §4–§6): models, checkpoints, log history, the job queue and its events
  trainingTablesSql('sqlite'),
  // annotation queues (otel-service-queues spec §D)
  annotationTablesSql('sqlite'),
  // web UI: browser sessions and the live tail's write order (calls.change_seq)
  uiTablesSql('sqlite'),
];
