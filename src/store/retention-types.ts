import type { NewBackgroundJob } from './job-types.js';

/**
 * Retention (docs/export.md "Retention"): per-project policies, the batched deletion of calls that
 * started before a cutoff (with the rows that hang off them), and giving the space back.
 */

export interface RetentionPolicyRow {
  project_id: string;
  /** Calls that started more than this many days ago are deleted. */
  keep_days: number;
  updated_by: string;
  updated_at: number;
  /** When the scheduler next queues a run (microseconds). */
  next_run_at: number;
  last_run_at: number | null;
  /** The cutoff of the last finished run: calls that started before it were deleted. */
  last_cutoff: number | null;
  last_deleted_calls: number | null;
}

export type RetentionPolicyWrite = Pick<
  RetentionPolicyRow,
  'project_id' | 'keep_days' | 'updated_by' | 'updated_at' | 'next_run_at'
>;

/** Rows a retention run removes (or a dry run would). */
export interface RetentionCounts {
  calls: number;
  /** Feedback whose `weave_ref` is one of the calls. */
  feedback: number;
  /** Annotation queue items of the calls, and their per-annotator progress. */
  annotation_queue_items: number;
  annotation_item_progress: number;
}

/** What giving the space back did. */
export interface SpaceReport {
  /**
   * SQLite's `auto_vacuum` mode (`incremental`: free pages released to the file system; `none`:
   * free pages are reused by later writes and only `VACUUM` shrinks the file; `full`: released at
   * each commit), or `autovacuum` on PostgreSQL (dead rows are reclaimed by its autovacuum).
   */
  mode: 'none' | 'full' | 'incremental' | 'autovacuum';
  /** File pages released (SQLite incremental mode), else 0. */
  pages_released: number;
  bytes_released: number;
}

export interface RetentionStore {
  /** The project's policy, or null. */
  getPolicy(projectId: string): Promise<RetentionPolicyRow | null>;
  /** Creates or replaces the project's policy (keeping the record of its last run); returns it. */
  setPolicy(policy: RetentionPolicyWrite): Promise<RetentionPolicyRow>;
  /** Removes the project's policy; false when it had none. */
  deletePolicy(projectId: string): Promise<boolean>;
  /** What deleting calls that started before `cutoff` would remove (a dry run). */
  countExpired(projectId: string, cutoff: number): Promise<RetentionCounts>;
  /**
   * Deletes at most `batchRows` calls (default 1,000 on SQLite, 5,000 on PostgreSQL) that started
   * before `cutoff`, oldest first, with their feedback and annotation items, in one short
   * transaction. Returns what it removed; fewer than `batchRows` calls means none are left.
   */
  deleteExpiredBatch(projectId: string, cutoff: number, opts?: { batchRows?: number }): Promise<RetentionCounts>;
  /**
   * Queues `job(policy)` for every policy whose `next_run_at` is at or before `now` and moves its
   * `next_run_at` to `now + intervalMicros`, both in one transaction per policy (PostgreSQL skips
   * policies another node is claiming), so one node queues each run and a crash loses none.
   * Returns the jobs queued.
   */
  scheduleDue(
    now: number,
    intervalMicros: number,
    job: (policy: RetentionPolicyRow) => NewBackgroundJob,
  ): Promise<NewBackgroundJob[]>;
  /** Records a finished run on the policy (nothing when the policy was removed meanwhile). */
  recordRun(projectId: string, run: { ran_at: number; cutoff: number; deleted_calls: number }): Promise<void>;
  /** Gives the space freed by deletions back (see `SpaceReport`), in short steps that let writes in between. */
  reclaimSpace(): Promise<SpaceReport>;
}
