/**
 * One step of the schema, the same step on both stores: SQL text per dialect, each applied in one
 * transaction by the dialect's runner (sqlite/sqlite-migrate.ts, postgres/postgres-migrate.ts).
 * Released entries are never edited; a change to the schema is a new entry in index.ts. (One
 * exception: 019–022 had their fills of existing calls taken out, which held an upgrade for minutes;
 * the schema they leave is unchanged, and 027 reconciles the stores migrated either way.)
 */
export interface Migration {
  /** 1, 2, 3 … in list order; the runners record it as applied. */
  id: number;
  /** The file name without its number, e.g. 'feedback-and-prices'. */
  name: string;
  /** Statements for SQLite (several per string are fine); [] when the step has nothing to do there. */
  sqlite: string | readonly string[];
  /** Statements for PostgreSQL (several per string are fine); [] when the step has nothing to do there. */
  postgres: string | readonly string[];
}

export type MigrationDialect = 'sqlite' | 'postgres';

/** The SQL texts of one migration for one dialect, in order. */
export function migrationSql(migration: Migration, dialect: MigrationDialect): readonly string[] {
  const sql = migration[dialect];
  return typeof sql === 'string' ? [sql] : sql;
}
