/**
 * Row types that pure domain code reads (call and object views, cost math, record fields). They
 * live here so domain/ never imports the store; store/types.ts and its siblings re-export them.
 * Instants are integer microseconds since the Unix epoch; JSON columns are JSON text.
 */

/** Where a call stands: its identity, op and place in its trace, the same in a stored row and a start. */
export interface CallPlacement {
  project_id: string;
  id: string;
  op_name: string;
  /** Name derived from `op_name` for `summary.weave.trace_name` (null for non-op refs). */
  op_display_name: string | null;
  display_name: string | null;
  trace_id: string;
  parent_id: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: number;
}

/** A visible call as stored. JSON columns are JSON text (null when that part is missing). */
export interface CallRow extends CallPlacement {
  attributes: string | null;
  inputs: string | null;
  otel_dump: string | null;
  wb_user_id: string | null;
  wb_run_id: string | null;
  wb_run_step: number | null;
  ended_at: number | null;
  exception: string | null;
  output: string | null;
  summary: string | null;
  wb_run_step_end: number | null;
  storage_size_bytes?: number | null;
  total_storage_size_bytes?: number | null;
  /** The creator's user name, when the query asked for usernames. */
  wb_username?: string | null;
  /** The write position, on rows of a `changed_after` query. */
  change_seq?: number;
}

/** One stored object version (docs/spec/objects.md §2.1). */
export interface ObjectVersionRow {
  project_id: string;
  object_id: string;
  digest: string;
  version_index: number;
  /** 1 for the one latest live version of the object, else 0. */
  is_latest: number;
  kind: 'op' | 'object';
  base_object_class: string | null;
  leaf_object_class: string | null;
  /** The canonical JSON text that was hashed (§1.2); `{}` when read metadata-only. */
  val: string;
  /** Byte length of the canonical text. */
  size_bytes: number;
  wb_user_id: string | null;
  created_at: number;
  deleted_at: number | null;
}

/** Tags and aliases of one version (aliases without the virtual `latest`), both sorted. */
export interface ObjectLabels {
  tags: string[];
  aliases: string[];
}

/**
 * A column or JSON path a feedback or price query may use. `number` columns hold doubles,
 * `datetime` ones microseconds.
 */
export type RecordField =
  | { kind: 'column'; name: string; type: 'string' | 'number' | 'datetime' }
  | { kind: 'json'; column: string; path: string[] };

/** One price record (docs/spec/objects.md §8.1); costs are per token. */
export interface CostRow {
  id: string;
  pricing_level: 'project' | 'default';
  /** Project id for project rows, `"default"` for the built-in ones. */
  pricing_level_id: string;
  provider_id: string;
  llm_id: string;
  effective_date: number;
  prompt_token_cost: number;
  completion_token_cost: number;
  cache_read_input_token_cost: number;
  cache_creation_input_token_cost: number;
  prompt_token_cost_unit: string;
  completion_token_cost_unit: string;
  created_by: string;
  created_at: number;
}

/**
 * A position in a project's write order. `seq` is the `change_seq` the store stamps on a call at
 * every start, end or rename; calls written together share it and are told apart by id.
 */
export interface CallChangeCursor {
  seq: number;
  id: string;
}
