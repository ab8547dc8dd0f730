import type { Migration } from './migration.js';

/**
 * Annotation queues (docs/spec/otel-service-queues.md §D), one text for both dialects (SQLite drops the
 * collation). Queues and items are soft-deleted; progress has one row per item and annotator.
 */
const POSTGRES = `
CREATE TABLE annotation_queues (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  scorer_refs text NOT NULL,
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  PRIMARY KEY (project_id, id)
);
CREATE TABLE annotation_queue_items (
  project_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  queue_id text COLLATE "C" NOT NULL,
  call_id text COLLATE "C" NOT NULL,
  call_started_at bigint NOT NULL,
  call_ended_at bigint,
  call_op_name text NOT NULL,
  call_trace_id text NOT NULL,
  display_fields text NOT NULL,
  added_by text,
  created_at bigint NOT NULL,
  created_by text NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX annotation_queue_items_by_queue ON annotation_queue_items (project_id, queue_id, call_id);
CREATE TABLE annotation_item_progress (
  project_id text COLLATE "C" NOT NULL,
  item_id text COLLATE "C" NOT NULL,
  annotator_user_id text COLLATE "C" NOT NULL,
  queue_id text COLLATE "C" NOT NULL,
  annotation_state text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (project_id, item_id, annotator_user_id)
);
CREATE INDEX annotation_item_progress_by_queue ON annotation_item_progress (project_id, queue_id);
`;

export const migration: Migration = {
  id: 6,
  name: 'annotation-queues',
  sqlite: POSTGRES.replaceAll(' COLLATE "C"', ''),
  postgres: POSTGRES,
};
