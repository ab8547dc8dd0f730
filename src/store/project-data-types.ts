/** Rows per per-project table, by table name. */
export type ProjectRowCounts = Record<string, number>;

/**
 * A project's data across every per-project table (src/store/sql/project-tables.ts lists them;
 * test/store/contract/project-delete.test.ts fails when a table with a `project_id` column is missing).
 */
export interface ProjectDataStore extends ProjectTransferStore {
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

/** One row of a per-project table as it travels between stores (docs/export.md "Whole-project export"). */
export interface ProjectDumpRow {
  table: string;
  /**
   * Column → value: text, numbers, null, or a Buffer for byte columns. JSON columns hold their JSON
   * text in compact form; store-local columns (PostgreSQL's `calls.seq`, `calls.change_seq`) are left out.
   */
  row: Record<string, unknown>;
}

/** Moving a whole project between stores, any adapter to any other. */
export interface ProjectTransferStore {
  /** The schema version (the last migration id) of this store. */
  readonly schemaVersion: number;
  /**
   * Every row of the project in every per-project table, `projects` first, read page by page
   * along each table's primary key (never the whole project at once). Not one snapshot: rows
   * written during the export may or may not be in it.
   */
  exportRows(projectId: string): AsyncIterable<ProjectDumpRow>;
  /**
   * Inserts the rows (consumed as they come), in batches of one transaction each. Every row must
   * belong to `projectId` and a per-project table, and name only columns this store has (else
   * InvalidRequestError; batches before it stay). A row that exists already fails its batch.
   * Returns the rows inserted per table.
   */
  importRows(projectId: string, rows: AsyncIterable<ProjectDumpRow>): Promise<ProjectRowCounts>;
}
