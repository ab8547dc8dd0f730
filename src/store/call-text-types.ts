/** What one step of the call indexer did (docs/query-performance.md "Substrings"). */
export interface CallTextStep {
  /** Calls whose text (and input leaves) this step wrote to the indexes. */
  calls: number;
  /** The project it worked on; null when no project had anything left to index. */
  project: string | null;
  /**
   * A step of the cost entries (migration 024) or of a fill of entries added later (migration 025):
   * `calls` counts the calls priced or filled.
   */
  kind?: 'cost' | 'fill';
  /** PostgreSQL: the tables whose planner statistics were refreshed after the step (planner-statistics.ts). */
  analyzed?: string[];
}

/**
 * The substring index of `$contains` (migration 017) and the `call_values` index of input
 * equalities (migration 016, filled here since migration 018), both filled after ingest by one
 * background indexer that follows `calls.change_seq` under one mark per project. Queries use them
 * through the compiler (calls-query/coverage.ts, calls-query/expr-values.ts); the marks make every answer
 * exact whatever the indexer's progress.
 */
export interface CallTextIndex {
  /**
   * Whether the indexes cover the project (its calls without `change_seq` are indexed): the query
   * compiler then plans `$contains` and input equalities around them. Cached for a second; only a planning hint,
   * the compiled SQL itself checks the mark.
   */
  covers(projectId: string): Promise<boolean>;
  /**
   * Whether the project's cost entries (migration 024) are complete at its prices: the cost sort then
   * walks them. Cached like `covers`, and only a planning hint too: the compiled SQL checks the generation.
   */
  costCovers(projectId: string): Promise<boolean>;
  /**
   * The background fills of the call indexer's entries (call-indexes/entry-fills.ts: those of migrations
   * 019–022, 025 and 026) not done for the project: a walk of those entries keeps the plain plan
   * until its fill is done. Cached like `covers`, and only a planning hint too: the compiled SQL
   * checks the fill itself.
   */
  pendingFills(projectId: string): Promise<readonly string[]>;
  /**
   * Indexes the next calls (at most `maxCalls`) of one project that has calls not indexed yet (their
   * texts and their input leaves), in one short transaction, and moves the project's mark past them. `project: null` when there was
   * nothing to do.
   */
  step(maxCalls?: number): Promise<CallTextStep>;
}
