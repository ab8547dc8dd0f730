import type { NewBackgroundJob } from './job-types.js';
import type { CallChangeCursor } from '../domain/rows.js';

/**
 * Online monitors' durable state (docs/monitors.md): per Monitor object a cursor in the project's
 * call write order, and per (monitor, call) the at-most-once scoring key.
 */

export interface MonitorCursorRow {
  project_id: string;
  /** The Monitor object's name (`object_id`). */
  monitor_id: string;
  /** Whether the latest published version is active. */
  active: boolean;
  /** The requester the scoring runs as (JSON, the publisher of the latest version). */
  caller: string;
  /** The last call write already looked at. */
  cursor: CallChangeCursor;
  /** The background job scanning this monitor now or last, if any. */
  scan_job_id: string | null;
  updated_at: number;
}

export interface MonitorStore {
  /**
   * A version of the monitor was published. A monitor that was not active (or unknown) and now is
   * starts reading at `head` (only calls written from now on are scored); otherwise the cursor stays.
   */
  follow(args: {
    projectId: string;
    monitorId: string;
    active: boolean;
    caller: string;
    head: CallChangeCursor;
    now: number;
  }): Promise<void>;
  /** The monitor's state, or null. */
  get(projectId: string, monitorId: string): Promise<MonitorCursorRow | null>;
  /** Active monitors of every project, at most `limit`, ordered by project and name. */
  listActive(limit: number): Promise<MonitorCursorRow[]>;
  /**
   * Stores `job` as the monitor's scan job, atomically, unless the monitor is inactive or its
   * previous scan job is still queued or running (on any node); a previous scan job that succeeded
   * is deleted (a failed one is kept, with its reason, and holds the next one back until
   * `retryMicros` after it failed). Returns whether it was stored.
   */
  claimScan(projectId: string, monitorId: string, job: NewBackgroundJob, retryMicros?: number): Promise<boolean>;
  /**
   * One scanned batch: the sampled calls become `pending` (a pair already recorded is left as it
   * is) and the cursor moves to `cursor` (never backwards), in one transaction.
   */
  record(projectId: string, monitorId: string, cursor: CallChangeCursor, callIds: string[], now: number): Promise<void>;
  /** Calls sampled in but not yet scored, oldest first. */
  pending(projectId: string, monitorId: string, limit: number): Promise<string[]>;
  /** Marks pairs scored. */
  markScored(projectId: string, monitorId: string, callIds: string[], now: number): Promise<void>;
  /** Every recorded pair of the monitor with its status (tests, diagnostics), by call id. */
  pairs(projectId: string, monitorId: string): Promise<Array<{ call_id: string; status: 'pending' | 'scored' }>>;
}
