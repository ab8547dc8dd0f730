import type pg from 'pg';
import type { CompiledSql } from '../sql/core/sql-tag.js';
import { driveAsync, type Tx, type TxDialect, type TxOp, type TxRunner } from '../sql/core/sql-tx.js';
import { compactParams, mapErrors } from './pg-support.js';
import { postgresDialect } from './postgres-dialect.js';
import { inTransaction } from './transaction.js';
import type { ReadPool } from './read-replicas.js';

/**
 * Transactions of the shared SQL stores (training, annotation queues, feedback, prices) on
 * PostgreSQL: each runs BEGIN…COMMIT on one pooled connection; rows are locked with FOR UPDATE and
 * the training queue's lease claims use SKIP LOCKED, so any number of nodes share the data.
 */
export class PgTxRunner implements TxRunner {
  constructor(
    private readonly pool: pg.Pool,
    /** Reads outside a transaction: the primary, or a caught-up replica (read-replicas.ts). */
    private readonly reads: ReadPool = pool,
  ) {}

  transaction<T>(body: () => Tx<T>): Promise<T> {
    return inTransaction(this.pool, (client) =>
      driveAsync(body, async (op: TxOp) => {
        if (op.kind === 'runAll') {
          const changed: number[] = [];
          for (const q of op.qs) changed.push((await query(client, q)).rowCount ?? 0);
          return changed;
        }
        const result = await query(client, op.q);
        return op.kind === 'all' ? result.rows : (result.rowCount ?? 0);
      }),
    );
  }

  async read<R>(q: CompiledSql): Promise<R[]> {
    const { rows } = await mapErrors(() => query(this.reads, q));
    return rows as R[];
  }
}

/** The shared compilers may bind values they do not use, which PostgreSQL cannot type. */
function query(db: ReadPool | pg.PoolClient, q: CompiledSql): Promise<pg.QueryResult> {
  const { text, values } = compactParams(q.sql, q.params);
  return (db as ReadPool).query(text, values);
}

export const POSTGRES_TX: TxDialect = {
  d: postgresDialect,
  forUpdate: 'FOR UPDATE',
  claim: 'FOR UPDATE SKIP LOCKED',
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
};
