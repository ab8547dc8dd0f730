import { createHash } from 'node:crypto';
import type { TestApp } from '../helpers/app.js';
import { dumpTables } from '../helpers/db-rows.js';

/**
 * A hash of every row of every table in the test app's database (the SQLite file, or the
 * PostgreSQL database when the HTTP suite runs on it), read on a separate connection (so it sees
 * exactly what was committed). Two equal fingerprints mean nothing was written in between,
 * whatever tables later areas add.
 */
export function dbFingerprint(h: Pick<TestApp, 'config'>): string {
  const hash = createHash('sha256');
  for (const { table, rows } of dumpTables(h)) {
    hash.update(`table ${table}\n`);
    for (const row of rows) hash.update(`${row}\n`);
  }
  return hash.digest('hex');
}
