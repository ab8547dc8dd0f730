import Database from 'better-sqlite3';
import { registerSqliteFunctions } from './sqlite-dialect.js';

/**
 * WAL pages between the writer connection's automatic checkpoints (SQLite's default is 1,000): an
 * ingest commit dirties hundreds of index pages at random places (the roll-up, the calls' indexes),
 * and a page rewritten by several commits between two checkpoints is copied back once. 16,000
 * pages (64 MiB of WAL) against 4,000: 1–3 µs less writer CPU per call and fewer pauses
 * (docs/query-performance.md, "Where the SQLite writer's time goes").
 */
export const WRITER_WAL_AUTOCHECKPOINT = 16_000;

/**
 * Opens a connection to the store's file (`readonly`: the file must exist already). WAL lets the
 * read connections read while the writer connection (in the writer thread) commits.
 */
export function openConnection(file: string, synchronous: string, readonly: boolean): Database.Database {
  const db = new Database(file, { readonly: false, fileMustExist: readonly });
  db.pragma('busy_timeout = 5000');
  if (!readonly) {
    // Only takes effect in a file without tables yet (a new store): retention then gives freed
    // pages back with `incremental_vacuum` (space-writes.ts). Older files keep their mode.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
  }
  db.pragma('foreign_keys = ON');
  registerSqliteFunctions(db);
  return db;
}
