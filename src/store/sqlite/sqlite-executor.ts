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

  /**
   * A `check` cannot cross to the writer thread, so a checked list first runs as a dry run (rolled
   * back) to learn the counts, then for real on condition that the counts are the same; if another
   * write changed them in between, the new counts are checked again. `check` must depend on the
   * counts alone.
   */
  async write(statements: CompiledSql[], check?: (changed: number[]) => void): Promise<number[]> {
    if (!check) return (await this.writer.submit('sql.run', { statements, keepIf: null })).changed;
    let keepIf: 'dry' | number[] = 'dry';
    for (;;) {
      const { changed, kept }: { changed: number[]; kept: boolean } = await this.writer.submit('sql.run', {
        statements,
        keepIf,
      });
      if (kept) return changed;
      check(changed);
      keepIf = changed;
    }
  }
}
