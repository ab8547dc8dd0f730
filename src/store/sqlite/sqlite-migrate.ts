import type Database from 'better-sqlite3';
import { MIGRATIONS, migrationSql } from '../sql/migrations/index.js';

/**
 * Applies the entries of the migration list (sql/migrations/index.ts) the file has not seen, each
 * in its own transaction, on the writer connection in the writer thread. `PRAGMA user_version`
 * holds the id of the last applied entry (files made before the shared list counted the same
 * steps the same way, so they upgrade as they are). BEGIN IMMEDIATE takes the file's write lock
 * before the version is read, so a second process opening the same file waits, then skips what
 * the first applied.
 */
export function migrate(db: Database.Database): void {
  MIGRATIONS.forEach((migration, index) => {
    // The entry before this one in the list (ids are consecutive once every branch is merged; a
    // branch may hold a later number given to it before the ones between are merged).
    const previous = index === 0 ? 0 : MIGRATIONS[index - 1]!.id;
    db.transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current >= migration.id) return;
      if (current !== previous)
        throw new Error(`SQLite schema is at version ${current}; migration ${migration.id} cannot follow it`);
      for (const sql of migrationSql(migration, 'sqlite')) db.exec(sql);
      db.pragma(`user_version = ${migration.id}`);
    }).immediate();
  });
}
