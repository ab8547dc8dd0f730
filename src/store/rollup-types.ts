import type { RollupLatencyRow, RollupStatsRow } from '../domain/call-rollup.js';

/** A call's key, the backfill's position in the calls table. */
export interface CallKeyCursor {
  project_id: string;
  id: string;
}

/**
 * A read of the roll-up: hours `from <= hour < to` with a scope in `scopes`, summed in the database
 * per bucket of `width` µs counted from `origin` (each row's `hour` is then its bucket's start; a
 * width of one hour returns the hourly rows), keeping `op_name` and `status` apart only when asked
 * (else they read ''). The latency histogram only for `latencyScopes`. Rows whose sums are all
 * zero (everything they counted was deleted) may be returned.
 */
export interface RollupRead {
  projectId: string;
  from: number;
  to: number;
  scopes: readonly number[];
  /** Scopes whose latency histogram to read; none: no histogram. */
  latencyScopes: readonly number[];
  origin: number;
  width: number;
  byOp: boolean;
  byStatus: boolean;
}

export interface RollupBackfillBatch {
  /** Rows read in this batch (0: the table has been read to its end). */
  read: number;
  /** Rows this batch added to the roll-up (the rest were already counted). */
  added: number;
  /** Where the next batch starts; null at the end. */
  next: CallKeyCursor | null;
}

/**
 * The hourly call roll-up behind `/calls/stats` (docs/call-rollups.md). The call writers keep it in
 * step with every write; this interface reads it and fills it for rows written before it existed.
 */
export interface CallRollupStore {
  /** Whether the roll-up counts every call (the backfill has finished, or there was nothing to fill). */
  complete(): Promise<boolean>;
  /** Roll-up rows of one project over a range, summed per bucket (see RollupRead). */
  read(q: RollupRead): Promise<{ stats: RollupStatsRow[]; latency: RollupLatencyRow[] }>;
  /**
   * One backfill step in one transaction: the next `limit` calls after `after` in key order (all
   * projects), locked, and those not yet counted added to the roll-up and marked counted.
   */
  backfillBatch(after: CallKeyCursor | null, limit: number): Promise<RollupBackfillBatch>;
  /** Records that the roll-up counts every call. */
  markComplete(now: number): Promise<void>;
  /** Marks the roll-up complete when no call is left uncounted (nothing to backfill); whether it did. */
  completeIfAllCounted(now: number): Promise<boolean>;
}
