import type pg from 'pg';
import type { CompiledSql } from '../sql/calls-select.js';
import { SqlAnnotationStore } from '../sql/annotation-store.js';
import { SqlTrainingStore } from '../sql/training-store.js';
import type { TrainingSqlDialect } from '../sql/training-sql.js';
import { driveAsync, type Tx, type TxOp, type TxRunner } from '../sql/training-tx.js';
import { compactParams, mapErrors } from './pg-support.js';
import { postgresDialect } from './postgres-dialect.js';
import { inTransaction } from './transaction.js';

/**
 * The training store on PostgreSQL: each transaction runs BEGIN…COMMIT on one pooled connection;
 * job rows are locked with FOR UPDATE and the lease claims with SKIP LOCKED, so any number of
 * nodes share the queue.
 */
class PgTxRunner implements TxRunner {
  constructor(private readonly pool: pg.Pool) {}

  transaction<T>(body: () => Tx<T>): Promise<T> {
    return inTransaction(this.pool, (client) =>
      driveAsync(body, async (op: TxOp) => {
        const { text, values } = compactParams(op.q.sql, op.q.params);
        const result = await client.query(text, values);
        return op.kind === 'all' ? result.rows : (result.rowCount ?? 0);
      }),
    );
  }

  async read<R>(q: CompiledSql): Promise<R[]> {
    const { text, values } = compactParams(q.sql, q.params);
    const { rows } = await mapErrors(() => this.pool.query(text, values));
    return rows as R[];
  }
}

const POSTGRES_TRAINING: TrainingSqlDialect = {
  d: postgresDialect,
  forUpdate: 'FOR UPDATE',
  claim: 'FOR UPDATE OF j SKIP LOCKED',
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
};

export function createPostgresTrainingStore(pool: pg.Pool): SqlTrainingStore {
  return new SqlTrainingStore(new PgTxRunner(pool), POSTGRES_TRAINING);
}

/** The annotation queues (otel-service-queues spec §D) over the same transactions. */
export function createPostgresAnnotationStore(pool: pg.Pool): SqlAnnotationStore {
  return new SqlAnnotationStore(new PgTxRunner(pool), POSTGRES_TRAINING);
}
