/** What one step of the substring indexer did (docs/query-performance.md "Substrings"). */
export interface CallTextStep {
  /** Calls whose text this step wrote to the index. */
  calls: number;
  /** The project it worked on; null when no project had anything left to index. */
  project: string | null;
}

/**
 * The substring index of `$contains` (migration 017), filled after ingest by a background indexer
 * that follows `calls.change_seq`. Queries use it through the compiler (calls-expr-text.ts); the
 * marks it keeps make every answer exact whatever its progress.
 */
export interface CallTextIndex {
  /**
   * Whether the index covers the project (its calls without `change_seq` are indexed): the query
   * compiler then plans `$contains` around the index. Cached for a second; only a planning hint,
   * the compiled SQL itself checks the mark.
   */
  covers(projectId: string): Promise<boolean>;
  /**
   * Indexes the next calls (at most `maxCalls`) of one project that has calls not indexed yet, in
   * one short transaction, and moves the project's mark past them. `project: null` when there was
   * nothing to do.
   */
  step(maxCalls?: number): Promise<CallTextStep>;
}
