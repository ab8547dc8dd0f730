import type { CompiledSql } from '../sql/calls-select.js';
import type { SqlExecutor } from '../sql/record-sql.js';
import type { ReadPool } from './read-pool.js';
import { bindNamed, StatementCache } from './statements.js';
import type { SqliteWriter } from './writer.js';

/** Reads on a pooled read connection, writes in the writer's group commit (one savepoint for the whole list). */
export class SqliteExecutor implements SqlExecutor {
  readonly #statements = new StatementCache();

  constructor(
    private readonly writer: SqliteWriter,
    private readonly reads: ReadPool,
  ) {}

  async all<T>(q: CompiledSql): Promise<T[]> {
    return this.reads.use((db) => this.#statements.get(db, q.sql).all(bindNamed(q.params)) as T[]);
  }

  write(statements: CompiledSql[], check?: (changed: number[]) => void): Promise<number[]> {
    return this.writer.submit((db) => {
      const changed = statements.map((s) => this.#statements.get(db, s.sql).run(bindNamed(s.params)).changes);
      check?.(changed);
      return changed;
    });
  }
}
