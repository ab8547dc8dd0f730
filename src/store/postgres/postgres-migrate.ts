import type pg from 'pg';
import { appliedByLegacyPostgresVersion, MIGRATIONS, migrationSql, type Migration } from '../sql/migrations/index.js';

/**
 * Serialises migrations across every Heddle process that shares the database: several nodes may
 * start at once, and only one may run DDL. Session-level, so it is held across the transactions.
 * (An arbitrary constant: 'heddle' in ASCII.)
 */
const MIGRATION_LOCK_KEY = '114384087786853';

/**
 * Applies the entries of the migration list (sql/migrations/index.ts) not yet recorded in
 * `heddle_schema_migrations`, each in its own transaction, on one connection; safe to run from
 * several processes at once. A database made before the shared list (its versions in
 * `heddle_migrations`) has them translated first. `migrations`: the list (a test passes a later one).
 */
export async function runMigrations(
  client: pg.ClientBase,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
  try {
    await inTransaction(client, () => adoptLegacyLog(client));
    const { rows } = await client.query<{ id: number }>('SELECT id FROM heddle_schema_migrations');
    const applied = new Set(rows.map((r) => r.id));
    for (const migration of migrations) {
      if (applied.has(migration.id)) continue;
      await inTransaction(client, async () => {
        for (const sql of migrationSql(migration, 'postgres')) await client.query(sql);
        await client.query('INSERT INTO heddle_schema_migrations (id, name) VALUES ($1, $2)', [
          migration.id,
          migration.name,
        ]);
      });
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
  }
}

/**
 * Creates the migration log; when the database still has the log of the per-store lists
 * (`heddle_migrations`, versions numbered differently), records the same steps under their ids in
 * the shared list and drops the old log, so nothing is applied twice.
 */
async function adoptLegacyLog(client: pg.ClientBase): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS heddle_schema_migrations (
    id integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ legacy: string | null }>(
    `SELECT to_regclass('heddle_migrations')::text AS legacy`,
  );
  if (rows[0]?.legacy == null) return;
  const { rows: versions } = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM heddle_migrations',
  );
  const applied = appliedByLegacyPostgresVersion(versions[0]?.version ?? 0);
  for (const migration of MIGRATIONS.slice(0, applied))
    await client.query('INSERT INTO heddle_schema_migrations (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
      migration.id,
      migration.name,
    ]);
  await client.query('DROP TABLE heddle_migrations');
}

async function inTransaction(client: pg.ClientBase, body: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await body();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
