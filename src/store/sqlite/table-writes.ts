import type Database from 'better-sqlite3';
import type { TableRowInsert } from '../types.js';
import { writerStatement as stmt } from './statements.js';

/** The table store's writes (docs/spec/objects.md §4), run on the writer connection in the writer thread. */

/** Rows per INSERT statement when storing a table (stays under SQLite's bound-parameter limit). */
const ROWS_PER_INSERT = 200;

export interface TableCreateArgs {
  projectId: string;
  tableDigest: string;
  rowDigests: readonly string[];
  rows: readonly TableRowInsert[];
  createdAt: number;
}

export function createTable(db: Database.Database, a: TableCreateArgs): void {
  const { projectId, tableDigest, rowDigests, createdAt } = a;
  insertRows(db, projectId, a.rows, createdAt);
  const inserted = stmt(
    db,
    'INSERT INTO table_digests (project_id, digest, row_count, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  ).run(projectId, tableDigest, rowDigests.length, createdAt);
  if (inserted.changes === 0) return;
  const entry = stmt(db, 'INSERT INTO table_entries (project_id, table_digest, pos, row_digest) VALUES (?, ?, ?, ?)');
  rowDigests.forEach((rowDigest, pos) => entry.run(projectId, tableDigest, pos, rowDigest));
}

function insertRows(
  db: Database.Database,
  projectId: string,
  rows: readonly TableRowInsert[],
  createdAt: number,
): void {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const sql = `INSERT INTO table_rows (project_id, digest, val, size_bytes, created_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}
      ON CONFLICT DO NOTHING`;
    stmt(db, sql).run(
      chunk.flatMap((row) => [projectId, row.digest, row.val, Buffer.byteLength(row.val, 'utf8'), createdAt]),
    );
  }
}
