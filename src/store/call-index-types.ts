/** Where the backfill of the call indexes of migration 016 stands (docs/query-performance.md). */
export interface CallIndexProgress {
  /** Every call stored before the migration is in the indexes: every project is ready. */
  done: boolean;
  /** Calls the backfill has passed so far. */
  calls_done: number;
  /** The project of the last call passed (projects before it in key order are ready); null before the first batch. */
  cursor_project: string | null;
  /** The project of the last call stored before migration 016 (projects after it hold only newer calls). */
  bound_project: string | null;
}

/**
 * The counters and latency column of migration 016 (`call_counts`, `calls.latency_ms`) for calls
 * stored before it. The call writers keep them for new writes; `backfillBatch` fills them for the
 * calls already there, in primary-key order, one short transaction per batch. Queries use them for
 * a project only once `ready` says so, so their results never depend on how far the backfill is.
 * (`call_values` is filled by the call indexer, CallTextIndex, since migration 018.)
 */
export interface CallIndexStore {
  /** Whether the indexes hold every call of the project (cached once true: it never becomes false). */
  ready(projectId: string): Promise<boolean>;
  /** The backfill's position. */
  progress(): Promise<CallIndexProgress>;
  /** Fills the indexes for the next `batchCalls` calls in key order (default: the adapter's batch size). */
  backfillBatch(batchCalls?: number): Promise<CallIndexProgress>;
  /**
   * Builds the indexes the migration left to the background; a no-op where there are none (since
   * migration 019 dropped PostgreSQL's `calls_by_latency`, on both stores). Queries do not wait for it:
   * their results are the same with or without an index.
   */
  buildDeferredIndexes(): Promise<void>;
}
