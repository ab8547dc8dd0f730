import type { Operation, SortKey } from '../domain/query/ast.js';
import type { CostRow, RecordField } from '../domain/rows.js';

export type { CostRow, RecordField } from '../domain/rows.js';

/**
 * Storage contracts for feedback (docs/spec/objects.md §7) and LLM prices (docs/spec/objects.md §8).
 * Instants are integer microseconds; JSON values travel as JSON text.
 */

/** One stored feedback record (docs/spec/objects.md §7.1, §7.4 columns). */
export interface FeedbackRow {
  project_id: string;
  id: string;
  weave_ref: string;
  wb_user_id: string;
  creator: string | null;
  created_at: number;
  feedback_type: string;
  /** JSON text of the processed payload object. */
  payload: string;
  annotation_ref: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
  queue_id: string | null;
  /** JSON text: a string list. */
  scorer_tags: string;
  /** JSON texts: string → string / number maps. */
  scorer_tag_reasons: string;
  scorer_tag_confidences: string;
  scorer_ratings: string;
  scorer_rating_reasons: string;
  scorer_rating_confidences: string;
  span_agent_name: string;
  span_agent_version: string;
  span_status_code: string;
  span_conversation_id: string;
  span_trace_id: string;
  scorer_trace_id: string;
}

export interface RecordQuery {
  project_id: string;
  where?: Operation<RecordField> | null;
  /** null = the store's default order. */
  sort_by?: SortKey<RecordField>[] | null;
  limit?: number | null;
  offset?: number | null;
}

/** Feedback rows of a time window (docs/spec/objects.md §7.7, §7.8). */
export interface FeedbackWindow {
  project_id: string;
  /** [from, to) on created_at. */
  from: number;
  to: number;
  feedback_type?: string | null;
  /** Exact trigger ref, or a prefix when `trigger_ref_prefix` is set. */
  trigger_ref?: string | null;
  trigger_ref_prefix?: boolean;
  /** Keep only the newest row per distinct trigger_ref (null counts as one value). */
  newest_per_trigger_ref?: boolean;
}

export interface FeedbackStore {
  /** Inserts the rows atomically (all or none). Ids are unique per project: an existing id fails the whole insert with InvalidRequestError. */
  insert(rows: FeedbackRow[]): Promise<void>;
  /** Deletes the project's row `oldId` (absent is fine) and inserts `row`, atomically (docs/spec/objects.md §7.5). */
  replace(projectId: string, oldId: string, row: FeedbackRow): Promise<void>;
  /** Matching rows in order (default `created_at asc, id asc`), after offset and limit. */
  query(q: RecordQuery): Promise<FeedbackRow[]>;
  /** Number of rows matching `where`, ignoring limit and offset. */
  count(q: RecordQuery): Promise<number>;
  /** Deletes the project's rows with these ids; returns how many were deleted. */
  purge(projectId: string, ids: string[]): Promise<number>;
  /** Rows whose `weave_ref` is one of `refs`, oldest first (docs/spec/calls.md §2.10 `include_feedback`). */
  forRefs(projectId: string, refs: string[]): Promise<FeedbackRow[]>;
  /** Rows of the window, newest first, at most `limit` of them (null = all). */
  inWindow(w: FeedbackWindow, limit: number | null): Promise<FeedbackRow[]>;
}

export interface CostStore {
  /** Inserts project-level rows atomically; existing rows are never overwritten. */
  insert(projectId: string, rows: CostRow[]): Promise<void>;
  /** The project's rows matching the query (default order `created_at asc, id asc`). */
  query(q: RecordQuery): Promise<CostRow[]>;
  /** Deletes the project's rows with these ids; returns how many were deleted. */
  purge(projectId: string, ids: string[]): Promise<number>;
  /** Every project row of the project for these models (all models when `llmIds` is null). */
  forModels(projectId: string, llmIds: string[] | null): Promise<CostRow[]>;
}
