import type pg from 'pg';
import { diskStateOf, isRetryable, mapPgError } from './pg-support.js';

/**
 * Runs `work` in one transaction on a pooled connection: committed when it resolves, rolled back
 * when it throws. A deadlock or serialization failure is retried (twice at most) from the start,
 * so `work` must not have side effects outside the database.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw mapPgError(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      diskStateOf(pool).noteCommit();
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < 2 && isRetryable(error)) continue;
      diskStateOf(pool).noteFailure(error);
      throw mapPgError(error);
    } finally {
      // a connection that could not even roll back is discarded, not reused
      client.release(broken);
    }
  }
}

/**
 * Serialises work on one object across every node until the transaction ends: the object's row in
 * `object_write_locks`, made on first use and then locked. A concurrent first insert waits for the
 * other transaction, so either way the caller holds the row lock. (A row lock holds on every node
 * of a Citus cluster; an advisory lock would only hold on the node that took it.)
 */
export async function lockObject(client: pg.PoolClient, projectId: string, objectId: string): Promise<void> {
  await client.query(
    'INSERT INTO object_write_locks (project_id, object_id) VALUES ($1, $2) ON CONFLICT (project_id, object_id) DO NOTHING',
    [projectId, objectId],
  );
  await client.query('SELECT 1 FROM object_write_locks WHERE project_id = $1 AND object_id = $2 FOR UPDATE', [
    projectId,
    objectId,
  ]);
}
