/**
 * The table store contract (docs/spec/objects.md §4): a table is an immutable ordered list of row digests,
 * content-addressed by the table digest; row bodies are stored once per (project, row digest).
 */

/** A row body to store: its digest (§1.4) and the canonical JSON text that was hashed. */
export interface TableRowInsert {
  digest: string;
  val: string;
}

/** One row of a table as queries return it; `val` is the stored canonical JSON text. */
export interface TableRowRecord {
  digest: string;
  val: string;
  /** 0-based position of the row in the table. */
  original_index: number;
}

/** A sort key of `/table/query`: a path into the row value (`["a","b"]` for `"a.b"`). */
export interface TableSortKey {
  path: string[];
  direction: 'asc' | 'desc';
}

export interface TableQuery {
  project_id: string;
  digest: string;
  /** Keep only rows whose digest is listed (null = all rows). */
  row_digests?: string[] | null;
  /**
   * Order by these values (§4.4): missing/null first, then numbers (booleans as 0/1), then
   * strings and objects; ties keep table order. Empty = table order.
   */
  sort_by?: TableSortKey[];
  limit?: number | null;
  offset?: number | null;
}

export interface TableStats {
  digest: string;
  /** Number of row digests in the table (unknown rows included). */
  count: number;
  /** Sum of the byte lengths of the stored row texts; null unless asked for. */
  storage_size_bytes: number | null;
}

export interface TableStore {
  /**
   * Stores a table: the row bodies not yet stored in the project (rows already stored are kept as
   * they are) and the ordered row digests under `tableDigest`. Idempotent: an existing table is
   * left unchanged. `rowDigests` may name rows that are not stored (`/table/create_from_digests`).
   */
  create(
    projectId: string,
    tableDigest: string,
    rowDigests: readonly string[],
    rows: readonly TableRowInsert[],
    createdAt: number,
  ): Promise<void>;
  /** The table's row digests in table order; null when the project has no such table. */
  rowDigests(projectId: string, tableDigest: string): Promise<string[] | null>;
  /**
   * The table's stored rows (rows whose body is unknown are skipped), streamed from the database.
   * An unknown table yields nothing.
   */
  query(q: TableQuery): AsyncIterable<TableRowRecord>;
  /** Stats of the known tables among `digests`, in request order (unknown ones left out). */
  stats(projectId: string, digests: readonly string[], includeStorageSize: boolean): Promise<TableStats[]>;
  /** The canonical text of row `rowDigest` when it belongs to table `tableDigest`, else null. */
  row(projectId: string, tableDigest: string, rowDigest: string): Promise<string | null>;
  /** The distinct entries of `rowDigests` that name no row stored in the project, in request order. */
  missingRows(projectId: string, rowDigests: readonly string[]): Promise<string[]>;
}
