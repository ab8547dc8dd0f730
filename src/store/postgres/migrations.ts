import type pg from 'pg';
import { FUNCTIONS_SQL } from './schema-functions.js';
import { TABLES_SQL } from './schema-tables.js';
import { FEEDBACK_TABLES_SQL } from './schema-feedback.js';
import { TABLE_STORE_SQL } from './schema-table-store.js';
import { annotationTablesSql } from '../sql/annotation-schema.js';
import { trainingTablesSql } from '../sql/training-schema.js';
import { uiTablesSql } from '../sql/ui-schema.js';

/**
 * PostgreSQL schema versions, applied in order, each in its own transaction. The applied versions
 * are rows of `heddle_migrations`. Append new entries; never edit one that has been released.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: everything the SQLite schema has so far (its migrations 0 and 1), plus the SQL functions
  `${FUNCTIONS_SQL}\n${TABLES_SQL}`,
  // 2: feedback and project LLM prices (SQLite migration 2)
  FEEDBACK_TABLES_SQL,
  // 3: tables of objects spec §4 (SQLite's tables migration)
  TABLE_STORE_SQL,
  // 4: training tables (SQLite's training migration)
  trainingTablesSql('postgres'),
  // 5: annotation queues (SQLite's annotation migration)
  annotationTablesSql('postgres'),
  // 6: web UI: browser sessions and the live tail's write order (SQLite's UI migration)
  uiTablesSql('postgres'),
];

/**
 * Serialises migrations across every Heddle process that shares the database: several nodes may
 * start at once, and only one may run DDL. Session-level, so it is held across the transactions.
 * (An arbitrary constant: 'heddle' in ASCII.)
 */
const MIGRATION_LOCK_KEY = '114384087786853';

/** Applies the pending migrations on one connection; safe to run from several processes at once. */
export async function runMigrations(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS heddle_migrations (
      version integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM heddle_migrations',
    );
    const current = rows[0]?.version ?? 0;
    for (let version = current + 1; version <= POSTGRES_MIGRATIONS.length; version += 1) {
      await client.query('BEGIN');
      try {
        await client.query(POSTGRES_MIGRATIONS[version - 1]);
        await client.query('INSERT INTO heddle_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
  }
}
