/** Rows and store of the annotation queues (docs/spec/otel-service-queues.md §D). Times are µs since the epoch. */

export interface AnnotationQueueRow {
  project_id: string;
  id: string;
  name: string;
  description: string;
  /** JSON text of a string array. */
  scorer_refs: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  deleted_at: number | null;
}

export interface AnnotationItemRow {
  project_id: string;
  id: string;
  queue_id: string;
  call_id: string;
  call_started_at: number;
  call_ended_at: number | null;
  call_op_name: string;
  call_trace_id: string;
  /** JSON text of a string array. */
  display_fields: string;
  added_by: string | null;
  created_at: number;
  created_by: string;
  updated_at: number;
  deleted_at: number | null;
}

export type AnnotationState = 'in_progress' | 'completed' | 'skipped';

export interface AnnotationProgressRow {
  item_id: string;
  annotator_user_id: string;
  annotation_state: AnnotationState;
  updated_at: number;
}

export interface QueueChanges {
  name?: string;
  description?: string;
  scorer_refs?: string;
}

/** Why a progress change was refused (docs/spec/otel-service-queues.md §D.2), or the stored outcome. */
export type ProgressOutcome =
  | { ok: true }
  | { ok: false; reason: 'in_progress_after_record' | 'invalid_transition' | 'item_not_found'; from?: AnnotationState };

export interface AnnotationStore {
  createQueue(row: AnnotationQueueRow): Promise<void>;
  /** The queue, soft-deleted or not; null when it never existed in the project. */
  getQueue(projectId: string, id: string): Promise<AnnotationQueueRow | null>;
  /** Live queues of the project. */
  listQueues(projectId: string): Promise<AnnotationQueueRow[]>;
  /** Applies the changes to a live queue (bumping `updated_at` when there are any); null when it is not live. */
  updateQueue(projectId: string, id: string, changes: QueueChanges, now: number): Promise<AnnotationQueueRow | null>;
  /** Soft-deletes a live queue; null when it is not live. */
  deleteQueue(projectId: string, id: string, now: number): Promise<AnnotationQueueRow | null>;
  /** Inserts the items whose call is not yet live in the queue; returns how many were new and how many already there. */
  addItems(
    projectId: string,
    queueId: string,
    items: AnnotationItemRow[],
  ): Promise<{ added: number; duplicates: number }>;
  /** Live items of a queue. */
  listItems(projectId: string, queueId: string): Promise<AnnotationItemRow[]>;
  /** Progress records of the queue's items, every annotator. */
  listProgress(projectId: string, queueId: string): Promise<AnnotationProgressRow[]>;
  /** The caller's progress on an item, by the transition rules of §D.2 (checked in that order). */
  setProgress(
    projectId: string,
    queueId: string,
    itemId: string,
    annotator: string,
    state: AnnotationState,
    now: number,
  ): Promise<ProgressOutcome>;
  /** Live item counts and items with a completed or skipped record, per queue id (absent ids: zeros). */
  stats(projectId: string, queueIds: string[]): Promise<Map<string, { total: number; completed: number }>>;
}
