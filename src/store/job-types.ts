/**
 * The background job queue (docs/architecture.md, "Background jobs"): durable jobs of any kind
 * leased by the runners of every node, with the lease and fencing rules of the training queue.
 */

export type BackgroundJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface BackgroundJobRow {
  project_id: string;
  id: string;
  /** `evaluate_model`, `score_calls` (the runner maps a kind to its handler). */
  kind: string;
  status: BackgroundJobStatus;
  /** The handler's arguments, JSON. */
  input: string;
  created_by: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** Leases taken so far; the current holder's attempt number while running. */
  attempts: number;
  max_attempts: number;
  error_message: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  fencing_token: number;
}

export interface NewBackgroundJob {
  project_id: string;
  id: string;
  kind: string;
  input: string;
  created_by: string;
  created_at: number;
  max_attempts: number;
}

export interface JobLeaseRequest {
  owner: string;
  now: number;
  leaseMicros: number;
  /** Kinds this runner executes; a job of another kind is left to a runner that knows it. */
  kinds: readonly string[];
}

/** Why a fenced write was refused: another holder has the job, or it already ended. */
export type JobWriteOutcome = { ok: true } | { ok: false; reason: 'stale' | 'finished' | 'not_found' };

export interface JobSweepResult {
  /** Running jobs whose lease expired, queued again for another attempt. */
  requeued: BackgroundJobRow[];
  /** Running jobs whose lease expired on their last attempt, now failed. */
  failed: BackgroundJobRow[];
}

export interface JobStore {
  /** Stores queued jobs, all or none. */
  enqueue(jobs: readonly NewBackgroundJob[]): Promise<void>;
  /** The job, or null. */
  get(projectId: string, id: string): Promise<BackgroundJobRow | null>;
  /**
   * Leases the oldest queued job of one of `kinds`: status `running`, `attempts` + 1, fencing
   * token + 1, lease until `now + leaseMicros`. Concurrent callers never get the same job
   * (PostgreSQL `SKIP LOCKED`; SQLite's single writer). Null when none is queued.
   */
  lease(r: JobLeaseRequest): Promise<BackgroundJobRow | null>;
  /** Extends the lease; false when `token` no longer holds the running job. */
  heartbeat(projectId: string, id: string, token: number, now: number, leaseMicros: number): Promise<boolean>;
  /** Ends the job `succeeded` (`failure` null) or `failed` with its reason, if `token` still holds it. */
  finish(projectId: string, id: string, token: number, failure: string | null, now: number): Promise<JobWriteOutcome>;
  /**
   * Gives a running job back to the queue without using up an attempt (a graceful shutdown); false
   * when `token` no longer holds it.
   */
  release(projectId: string, id: string, token: number): Promise<boolean>;
  /**
   * Re-queues running jobs whose lease expired before `now` while attempts remain, and fails the
   * others with `exhaustedMessage`; at most 100 per pass. Each job is re-checked under its row lock,
   * so every node may sweep at once.
   */
  sweep(now: number, exhaustedMessage: string): Promise<JobSweepResult>;
}
