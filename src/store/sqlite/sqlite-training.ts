import type { CompiledSql } from '../sql/calls-select.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { SqlAnnotationStore } from '../sql/annotation-store.js';
import { SqlTrainingStore } from '../sql/training-store.js';
import type { TrainingSqlDialect } from '../sql/training-sql.js';
import type { Tx, TxRunner } from '../sql/training-tx.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

/**
 * The training store on SQLite: a transaction is one write of the single writer's group commit
 * (its own savepoint), so a lease claim or an event append is atomic without row locks.
 */
class SqliteTxRunner implements TxRunner {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  transaction<T>(body: () => Tx<T>): Promise<T> {
    return this.writer.transaction(body);
  }

  read<R>(q: CompiledSql): Promise<R[]> {
    return this.reads.use((db) => this.#statements.get(db, q.sql).all(bindNamed(q.params)) as R[]);
  }
}

const SQLITE_TRAINING: TrainingSqlDialect = {
  d: sqliteDialect,
  forUpdate: '',
  claim: '',
  isUniqueViolation: (error) =>
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
};

export function createSqliteTrainingStore(writer: SqliteWriter, reads: ReadPool): SqlTrainingStore {
  return new SqlTrainingStore(new SqliteTxRunner(writer, reads), SQLITE_TRAINING);
}

/** The annotation queues (otel-service-queues spec §D) over the same transactions. */
export function createSqliteAnnotationStore(writer: SqliteWriter, reads: ReadPool): SqlAnnotationStore {
  return new SqlAnnotationStore(new SqliteTxRunner(writer, reads), SQLITE_TRAINING);
}
