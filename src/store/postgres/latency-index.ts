import type pg from 'pg';
import { LATENCY_INDEX_PG_COLUMNS } from '../sql/migrations/016-call-counts-and-latency.js';

/**
 * Builds `calls_by_latency` when migration 016 left it to the background job (the table had rows):
 * `CREATE INDEX CONCURRENTLY` lets writes go on while it reads the table. A build that failed part
 * way leaves an invalid index behind, which is dropped and built again. Runs on the primary, outside
 * any transaction (CONCURRENTLY refuses one); a no-op once the index is valid.
 */
export async function buildLatencyIndex(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ valid: boolean }>(
    "SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('calls_by_latency')",
  );
  if (rows[0]?.valid === true) return;
  if (rows[0] !== undefined) await pool.query('DROP INDEX CONCURRENTLY IF EXISTS calls_by_latency');
  await pool.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${LATENCY_INDEX_PG_COLUMNS}`);
}
