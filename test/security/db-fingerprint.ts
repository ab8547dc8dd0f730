import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { TestApp } from '../helpers/app.js';

/**
 * A hash of every row of every table in the test app's SQLite file, read on a separate read-only
 * connection (so it sees exactly what was committed). Two equal fingerprints mean nothing was
 * written in between, whatever tables later areas add.
 */
export function dbFingerprint(h: Pick<TestApp, 'config'>): string {
  const db = new Database(path.join(h.config.dataDir, 'heddle.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const hash = createHash('sha256');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    for (const { name } of tables) {
      hash.update(`table ${name}\n`);
      for (const row of db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).iterate()) {
        hash.update(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
        hash.update('\n');
      }
    }
    return hash.digest('hex');
  } finally {
    db.close();
  }
}
