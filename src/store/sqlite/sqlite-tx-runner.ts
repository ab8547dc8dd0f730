import type { CompiledSql } from '../sql/core/sql-tag.js';
import type { Tx, TxDialect, TxRunner } from '../sql/core/sql-tx.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

/**
 * Transactions of the shared SQL stores (training, annotation queues, feedback, prices) on SQLite:
 * a transaction is one write of the single writer's group commit (its own savepoint), so a lease
 * claim or a duplicate check is atomic without row locks. Reads run on a pooled read connection.
 */
export class SqliteTxRunner implements TxRunner {
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

export const SQLITE_TX: TxDialect = {
  d: sqliteDialect,
  forUpdate: '',
  claim: '',
  isUniqueViolation: (error) =>
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
};
