/** Rows per per-project table, by table name. */
export type ProjectRowCounts = Record<string, number>;

/**
 * A project's data across every per-project table (src/store/sql/project-tables.ts lists them;
 * test/store/contract/project-delete.test.ts fails when a table with a `project_id` column is missing).
 */
export interface ProjectDataStore {
  /** The project's rows in every per-project table (0 for tables it has none in). */
  rowCounts(projectId: string): Promise<ProjectRowCounts>;
  /**
   * Deletes every row of the project from every per-project table, the `projects` row last, at most
   * `batchRows` rows per transaction (default 1,000 on SQLite, 5,000 on PostgreSQL) so that concurrent writes never wait long for the
   * lock. Not atomic: an interrupted deletion leaves rows that a second call removes. Returns the rows
   * deleted per table.
   */
  deleteProject(projectId: string, opts?: { batchRows?: number }): Promise<ProjectRowCounts>;
}
