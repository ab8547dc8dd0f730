import type pg from 'pg';
import Cursor from 'pg-cursor';
import { FIRST_CURSOR_BATCH, nextCursorBatchAfter } from './cursor-batch.js';
import type { TableQuery, TableRowInsert, TableRowRecord, TableSortKey, TableStats, TableStore } from '../types.js';
import { mapErrors, mapPgError, PG_TYPES } from './pg-support.js';
import { inTransaction } from './transaction.js';
import type { ReadPool } from './read-replicas.js';

/** Rows per statement when storing a table (bounds the size of one parameter array). */
const ROWS_PER_INSERT = 1000;

/**
 * The sort of docs/spec/objects.md §4.4 as the SQLite adapter gives it (SQLite orders NULL < numbers <
 * text): missing or null first, then numbers and booleans (as 1/0) numerically, then strings and
 * compact objects/lists by code point. `json` (not `jsonb`) keeps the canonical text's key order,
 * so objects compare as SQLite's text does. A key holding `"` sorts as missing, as it must on
 * SQLite (it cannot be written as an SQLite JSON path).
 */
function sortTerms(key: TableSortKey, params: unknown[]): string[] {
  const dir = key.direction === 'desc' ? 'DESC' : 'ASC';
  if (key.path.some((segment) => segment.includes('"'))) return [];
  params.push(key.path);
  const v = `(r.val::json #> $${params.length}::text[])`;
  const rank = `CASE json_typeof(${v}) WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 ELSE 0 END`;
  const num = `CASE json_typeof(${v}) WHEN 'number' THEN (${v}::text)::numeric WHEN 'boolean' THEN CASE WHEN ${v}::text = 'true' THEN 1 ELSE 0 END END`;
  const text = `(CASE json_typeof(${v}) WHEN 'string' THEN ${v} #>> '{}' WHEN 'object' THEN heddle_compact_json(${v}::text)
    WHEN 'array' THEN heddle_compact_json(${v}::text) END) COLLATE "C"`;
  return [`${rank} ${dir}`, `${num} ${dir}`, `${text} ${dir}`];
}

/** A paging value PostgreSQL can bind as bigint: beyond 2^53 is as good as unlimited. */
const bounded = (value: number): number => Math.min(Math.trunc(value), Number.MAX_SAFE_INTEGER);

/** Tables (docs/spec/objects.md §4) on PostgreSQL, with the semantics of the SQLite table store. */
export class PostgresTableStore implements TableStore {
  constructor(
    private readonly pool: pg.Pool,
    /** Reads outside a write: the primary, or a caught-up replica (read-replicas.ts). */
    private readonly reads: ReadPool,
    private readonly streamReads: ReadPool,
  ) {}

  /** One transaction; two nodes storing the same table meet on its primary key and the later one changes nothing. */
  create(
    projectId: string,
    tableDigest: string,
    rowDigests: readonly string[],
    rows: readonly TableRowInsert[],
    createdAt: number,
  ): Promise<void> {
    // rows in digest order: concurrent creations sharing rows lock them in the same order
    const sorted = [...rows].sort((a, b) => (a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0));
    return inTransaction(this.pool, async (db) => {
      for (let start = 0; start < sorted.length; start += ROWS_PER_INSERT) {
        const chunk = sorted.slice(start, start + ROWS_PER_INSERT);
        await db.query(
          `INSERT INTO table_rows (project_id, digest, val, size_bytes, created_at)
           SELECT $1, x.digest, x.val, octet_length(x.val), $4 FROM unnest($2::text[], $3::text[]) AS x(digest, val)
           ON CONFLICT DO NOTHING`,
          [projectId, chunk.map((r) => r.digest), chunk.map((r) => r.val), createdAt],
        );
      }
      const inserted = await db.query(
        'INSERT INTO table_digests (project_id, digest, row_count, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [projectId, tableDigest, rowDigests.length, createdAt],
      );
      if (inserted.rowCount === 0) return;
      for (let start = 0; start < rowDigests.length; start += ROWS_PER_INSERT) {
        await db.query(
          `INSERT INTO table_entries (project_id, table_digest, pos, row_digest)
           SELECT $1, $2, $3::integer + x.n - 1, x.digest FROM unnest($4::text[]) WITH ORDINALITY AS x(digest, n)`,
          [projectId, tableDigest, start, rowDigests.slice(start, start + ROWS_PER_INSERT)],
        );
      }
    });
  }

  async rowDigests(projectId: string, tableDigest: string): Promise<string[] | null> {
    const { rows } = await mapErrors(() =>
      this.pool.query<{ known: boolean; digests: string[] | null }>(
        `SELECT EXISTS (SELECT 1 FROM table_digests WHERE project_id = $1 AND digest = $2) AS known,
                (SELECT array_agg(row_digest ORDER BY pos) FROM table_entries WHERE project_id = $1 AND table_digest = $2) AS digests`,
        [projectId, tableDigest],
      ),
    );
    return rows[0]!.known ? (rows[0]!.digests ?? []) : null;
  }

  query(q: TableQuery): AsyncIterable<TableRowRecord> {
    const params: unknown[] = [q.project_id, q.digest];
    let where = 'e.project_id = $1 AND e.table_digest = $2';
    if (q.row_digests != null) {
      params.push(q.row_digests);
      where += ` AND e.row_digest = ANY($${params.length}::text[])`;
    }
    const order = [...(q.sort_by ?? []).flatMap((key) => sortTerms(key, params)), 'e.pos ASC'].join(', ');
    let paging = '';
    if (q.limit != null) paging += ` LIMIT ${bounded(q.limit)}`;
    if (q.offset != null) paging += ` OFFSET ${bounded(q.offset)}`;
    const sql = `SELECT e.row_digest AS digest, r.val AS val, e.pos AS original_index
      FROM table_entries e JOIN table_rows r ON r.project_id = e.project_id AND r.digest = e.row_digest
      WHERE ${where} ORDER BY ${order}${paging}`;
    return this.#stream(sql, params);
  }

  async *#stream(sql: string, params: unknown[]): AsyncGenerator<TableRowRecord> {
    const client = await mapErrors(() => this.streamReads.connect());
    const cursor = client.query(new Cursor<TableRowRecord>(sql, params, { types: PG_TYPES }));
    let failure: Error | undefined;
    // the connection may die while the consumer holds the stream between batches
    const onError = (error: Error): void => {
      failure ??= error;
    };
    client.on('error', onError);
    try {
      let batch = FIRST_CURSOR_BATCH;
      for (;;) {
        let rows: TableRowRecord[];
        try {
          rows = await cursor.read(batch);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
          throw mapPgError(error);
        }
        if (rows.length === 0) return;
        batch = nextCursorBatchAfter(rows);
        yield* rows;
      }
    } finally {
      // a failed cursor is not closed: on a dead connection close() waits forever for the server
      if (failure === undefined)
        await cursor.close().catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
        });
      client.off('error', onError);
      client.release(failure);
    }
  }

  async stats(projectId: string, digests: readonly string[], includeStorageSize: boolean): Promise<TableStats[]> {
    if (digests.length === 0) return [];
    const { rows } = await mapErrors(() =>
      this.reads.query<{ digest: string; row_count: number; size: number | null }>(
        `SELECT d.digest, d.row_count, CASE WHEN $3::boolean THEN (SELECT COALESCE(SUM(r.size_bytes), 0) FROM table_entries e
           JOIN table_rows r ON r.project_id = e.project_id AND r.digest = e.row_digest
           WHERE e.project_id = d.project_id AND e.table_digest = d.digest) END AS size
         FROM table_digests d WHERE d.project_id = $1 AND d.digest = ANY($2::text[])`,
        [projectId, [...new Set(digests)], includeStorageSize],
      ),
    );
    const found = new Map(rows.map((row) => [row.digest, row]));
    return digests.flatMap((digest) => {
      const row = found.get(digest);
      return row ? [{ digest, count: row.row_count, storage_size_bytes: includeStorageSize ? row.size : null }] : [];
    });
  }

  async row(projectId: string, tableDigest: string, rowDigest: string): Promise<string | null> {
    const { rows } = await mapErrors(() =>
      this.reads.query<{ val: string }>(
        `SELECT r.val FROM table_rows r WHERE r.project_id = $1 AND r.digest = $2 AND EXISTS (
           SELECT 1 FROM table_entries e WHERE e.project_id = r.project_id AND e.table_digest = $3 AND e.row_digest = r.digest)`,
        [projectId, rowDigest, tableDigest],
      ),
    );
    return rows[0]?.val ?? null;
  }

  async missingRows(projectId: string, rowDigests: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(rowDigests)];
    if (wanted.length === 0) return [];
    const { rows } = await mapErrors(() =>
      this.pool.query<{ digest: string }>(
        `SELECT d.digest FROM unnest($2::text[]) WITH ORDINALITY AS d(digest, n) WHERE NOT EXISTS (
           SELECT 1 FROM table_rows r WHERE r.project_id = $1 AND r.digest = d.digest) ORDER BY d.n`,
        [projectId, wanted],
      ),
    );
    return rows.map((row) => row.digest);
  }
}
