/**
 * Every table holding a project's data, with its primary key (which starts with `project_id`, as
 * test/store/contract/schema-equality.test.ts checks), in the order a project deletion empties them:
 * what refers to other rows first, the `projects` row last so an interrupted deletion is still
 * listed and can be repeated. test/store/contract/project-delete.test.ts compares this list with the
 * schema: a new table with a `project_id` column must be added here.
 */
export const PROJECT_TABLES: ReadonlyArray<{ table: string; key: readonly string[] }> = [
  { table: 'alert_deliveries', key: ['project_id', 'event_id', 'target'] },
  { table: 'alert_events', key: ['project_id', 'alert_id', 'event_id'] },
  { table: 'alert_states', key: ['project_id', 'alert_id'] },
  { table: 'monitor_scores', key: ['project_id', 'monitor_id', 'call_id'] },
  { table: 'monitor_cursors', key: ['project_id', 'monitor_id'] },
  { table: 'background_jobs', key: ['project_id', 'id'] },
  { table: 'retention_policies', key: ['project_id'] },
  { table: 'annotation_item_progress', key: ['project_id', 'item_id', 'annotator_user_id'] },
  { table: 'annotation_queue_items', key: ['project_id', 'id'] },
  { table: 'annotation_queues', key: ['project_id', 'id'] },
  { table: 'feedback', key: ['project_id', 'id'] },
  { table: 'llm_token_prices', key: ['project_id', 'id'] },
  { table: 'training_events', key: ['project_id', 'job_id', 'seq'] },
  { table: 'training_log_history', key: ['project_id', 'model_id', 'id'] },
  { table: 'training_checkpoints', key: ['project_id', 'model_id', 'step'] },
  { table: 'training_jobs', key: ['project_id', 'id'] },
  { table: 'training_models', key: ['project_id', 'id'] },
  { table: 'training_ids', key: ['id'] },
  { table: 'object_write_locks', key: ['project_id', 'object_id'] },
  { table: 'object_tags', key: ['project_id', 'object_id', 'digest', 'tag'] },
  { table: 'object_aliases', key: ['project_id', 'object_id', 'alias'] },
  { table: 'object_versions', key: ['project_id', 'object_id', 'version_index'] },
  { table: 'table_entries', key: ['project_id', 'table_digest', 'pos'] },
  { table: 'table_digests', key: ['project_id', 'digest'] },
  { table: 'table_rows', key: ['project_id', 'digest'] },
  { table: 'file_chunks', key: ['project_id', 'blob_id', 'seq'] },
  { table: 'files', key: ['project_id', 'digest'] },
  { table: 'agent_span_attrs', key: ['project_id', 'trace_id', 'span_id', 'source', 'attr_key'] },
  { table: 'agent_span_messages', key: ['project_id', 'trace_id', 'span_id', 'seq'] },
  { table: 'agent_spans', key: ['project_id', 'trace_id', 'span_id'] },
  { table: 'call_rollup_latency', key: ['project_id', 'hour', 'op_name', 'status', 'scope', 'model', 'bin'] },
  { table: 'call_rollups', key: ['project_id', 'hour', 'op_name', 'status', 'scope', 'model'] },
  { table: 'calls', key: ['project_id', 'id'] },
  { table: 'call_counts', key: ['project_id', 'bucket'] },
  { table: 'call_values', key: ['project_id', 'path', 'value', 'call_id'] },
  { table: 'call_latency', key: ['project_id', 'latency_ms', 'id'] },
  { table: 'call_status', key: ['project_id', 'status', 'started_at', 'id'] },
  { table: 'call_status_roots', key: ['project_id', 'status', 'started_at', 'id'] },
  { table: 'call_display', key: ['project_id', 'kind', 'display_key', 'id'] },
  { table: 'call_tokens', key: ['project_id', 'is_null', 'tokens', 'id'] },
  { table: 'call_cost', key: ['project_id', 'gen', 'is_null', 'cost', 'id'] },
  { table: 'call_token_roots', key: ['project_id', 'is_null', 'tokens', 'id'] },
  { table: 'call_latency_roots', key: ['project_id', 'latency_ms', 'id'] },
  { table: 'call_trace_names', key: ['project_id', 'root', 'kind', 'name_key', 'id'] },
  { table: 'call_op_names', key: ['project_id', 'root', 'kind', 'name_key', 'id'] },
  { table: 'call_text_marks', key: ['project_id'] },
  // after the marks: the indexer starts a generation or a fill only for a project with a mark
  { table: 'call_cost_gens', key: ['project_id'] },
  { table: 'call_entry_fills', key: ['project_id', 'entries'] },
  { table: 'projects', key: ['project_id'] },
];

/**
 * Per-project tables only PostgreSQL has: the roll-up changes not folded yet (migration 023) and the
 * text of the substring index (migration 017; SQLite's FTS5 table is keyed by the calls' rowid and
 * has no project column). Emptied before `calls`.
 */
const POSTGRES_ONLY: ReadonlyArray<{ table: string; key: readonly string[] }> = [
  { table: 'call_rollup_pending', key: ['project_id', 'seq'] },
  { table: 'call_texts', key: ['project_id', 'id'] },
];

/** PROJECT_TABLES with the tables only one store has, in deletion order. */
export function projectTables(store: 'sqlite' | 'postgres'): ReadonlyArray<{ table: string; key: readonly string[] }> {
  if (store === 'sqlite') return PROJECT_TABLES;
  const at = PROJECT_TABLES.findIndex((t) => t.table === 'calls');
  return [...PROJECT_TABLES.slice(0, at), ...POSTGRES_ONLY, ...PROJECT_TABLES.slice(at)];
}
