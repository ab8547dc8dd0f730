import type Database from 'better-sqlite3';
import type { TableQuery, TableRowInsert, TableRowRecord, TableSortKey, TableStats, TableStore } from '../types.js';
import type { ReadPool } from './read-pool.js';
import { StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

interface Sql {
  sql: string;
  params: unknown[];
}

/**
 * A SQLite expression for the value at `path` in `r.val` (docs/spec/objects.md §4.4 sort). A numeric
 * segment is a list index when the value there is a list, else a dict key. A key holding `"`
 * cannot be written as an SQLite JSON path, so it sorts as missing.
 */
function jsonPathExpr(path: readonly string[], prefix: string): Sql {
  const [head, ...rest] = path;
  if (head === undefined) return { sql: 'json_extract(r.val, ?)', params: [prefix] };
  if (head.includes('"')) return { sql: 'NULL', params: [] };
  const asKey = jsonPathExpr(rest, `${prefix}."${head}"`);
  if (!/^\d+$/.test(head)) return asKey;
  const asIndex = jsonPathExpr(rest, `${prefix}[${head}]`);
  return {
    sql: `(CASE json_type(r.val, ?) WHEN 'array' THEN ${asIndex.sql} ELSE ${asKey.sql} END)`,
    params: [prefix, ...asIndex.params, ...asKey.params],
  };
}

function orderBy(sortBy: readonly TableSortKey[], params: unknown[]): string {
  // SQLite orders NULL < numbers < text, which is §4.4's order: json_extract yields NULL for
  // missing/null, 1/0 for booleans, numbers, and text for strings and (compact) objects
  const keys = sortBy.map((key) => {
    const expr = jsonPathExpr(key.path, '$');
    params.push(...expr.params);
    return `${expr.sql} ${key.direction === 'desc' ? 'DESC' : 'ASC'}`;
  });
  return [...keys, 'e.pos ASC'].join(', ');
}

/** The SQLite table store (docs/spec/objects.md §4). Writes go through the group-commit writer. */
export class SqliteTableStore implements TableStore {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  create(
    projectId: string,
    tableDigest: string,
    rowDigests: readonly string[],
    rows: readonly TableRowInsert[],
    createdAt: number,
  ): Promise<void> {
    return this.writer.submit('tables.create', { projectId, tableDigest, rowDigests, rows, createdAt });
  }

  async rowDigests(projectId: string, tableDigest: string): Promise<string[] | null> {
    return this.reads.use((db) => {
      const known = this.#stmt(db, 'SELECT 1 FROM table_digests WHERE project_id = ? AND digest = ?').get(
        projectId,
        tableDigest,
      );
      if (!known) return null;
      const rows = this.#stmt(
        db,
        'SELECT row_digest FROM table_entries WHERE project_id = ? AND table_digest = ? ORDER BY pos',
      )
        .raw()
        .all(projectId, tableDigest) as Array<[string]>;
      return rows.map(([digest]) => digest);
    });
  }

  query(q: TableQuery): AsyncIterable<TableRowRecord> {
    const params: unknown[] = [q.project_id, q.digest];
    let where = 'e.project_id = ? AND e.table_digest = ?';
    if (q.row_digests != null) {
      where += ' AND e.row_digest IN (SELECT value FROM json_each(?))';
      params.push(JSON.stringify(q.row_digests));
    }
    const order = orderBy(q.sort_by ?? [], params);
    // LIMIT -1 is SQLite's "no limit"; huge values are clamped to what SQLite integers hold
    params.push(clampPaging(q.limit, -1), clampPaging(q.offset, 0));
    const sql = `SELECT e.row_digest AS digest, r.val AS val, e.pos AS original_index
      FROM table_entries e JOIN table_rows r ON r.project_id = e.project_id AND r.digest = e.row_digest
      WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
    return this.#stream(sql, params);
  }

  async *#stream(sql: string, params: unknown[]): AsyncGenerator<TableRowRecord> {
    const db = await this.reads.acquire();
    const rows = this.#stmt(db, sql).iterate(params) as IterableIterator<TableRowRecord>;
    try {
      for (const row of rows) yield row;
    } finally {
      rows.return?.();
      this.reads.release(db);
    }
  }

  async stats(projectId: string, digests: readonly string[], includeStorageSize: boolean): Promise<TableStats[]> {
    if (digests.length === 0) return [];
    return this.reads.use((db) => {
      const count = this.#stmt(db, 'SELECT row_count FROM table_digests WHERE project_id = ? AND digest = ?');
      const size = this.#stmt(
        db,
        `SELECT COALESCE(SUM(r.size_bytes), 0) AS size FROM table_entries e
        JOIN table_rows r ON r.project_id = e.project_id AND r.digest = e.row_digest WHERE e.project_id = ? AND e.table_digest = ?`,
      );
      const out: TableStats[] = [];
      for (const digest of digests) {
        const found = count.get(projectId, digest) as { row_count: number } | undefined;
        if (!found) continue;
        const bytes = includeStorageSize ? (size.get(projectId, digest) as { size: number }).size : null;
        out.push({ digest, count: found.row_count, storage_size_bytes: bytes });
      }
      return out;
    });
  }

  async row(projectId: string, tableDigest: string, rowDigest: string): Promise<string | null> {
    return this.reads.use((db) => {
      const found = this.#stmt(
        db,
        `SELECT r.val FROM table_rows r WHERE r.project_id = ? AND r.digest = ? AND EXISTS (
        SELECT 1 FROM table_entries e WHERE e.project_id = r.project_id AND e.table_digest = ? AND e.row_digest = r.digest)`,
      ).get(projectId, rowDigest, tableDigest) as { val: string } | undefined;
      return found?.val ?? null;
    });
  }

  async missingRows(projectId: string, rowDigests: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(rowDigests)];
    if (wanted.length === 0) return [];
    return this.reads.use((db) => {
      const missing = this.#stmt(
        db,
        `SELECT j.value FROM json_each(?) j WHERE NOT EXISTS (
        SELECT 1 FROM table_rows r WHERE r.project_id = ? AND r.digest = j.value) ORDER BY j.key`,
      )
        .raw()
        .all(JSON.stringify(wanted), projectId) as Array<[string]>;
      return missing.map(([digest]) => digest);
    });
  }

  #stmt(db: Database.Database, sql: string): Database.Statement {
    return this.#statements.get(db, sql);
  }
}

/** A paging value SQLite can bind: null → `fallback`, beyond 2^53 → 2^53. */
function clampPaging(value: number | null | undefined, fallback: number): number {
  if (value == null) return fallback;
  return Math.min(value, Number.MAX_SAFE_INTEGER);
}
