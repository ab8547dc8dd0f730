import type pg from 'pg';
import type { CompiledSql } from '../sql/calls-select.js';
import type { SqlExecutor } from '../sql/record-sql.js';
import { compactParams, mapErrors } from './pg-support.js';
import { inTransaction } from './transaction.js';

/** Runs the shared record stores' SQL on the pool; a write list is one transaction. */
export class PgExecutor implements SqlExecutor {
  constructor(private readonly pool: pg.Pool) {}

  async all<T>(q: CompiledSql): Promise<T[]> {
    // the shared compilers may bind values they do not use, which PostgreSQL cannot type
    const { text, values } = compactParams(q.sql, q.params);
    const { rows } = await mapErrors(() => this.pool.query(text, values));
    return rows as T[];
  }

  write(statements: CompiledSql[], check?: (changed: number[]) => void): Promise<number[]> {
    return inTransaction(this.pool, async (client) => {
      const changed: number[] = [];
      for (const s of statements) {
        const { text, values } = compactParams(s.sql, s.params);
        changed.push((await client.query(text, values)).rowCount ?? 0);
      }
      check?.(changed);
      return changed;
    });
  }
}
