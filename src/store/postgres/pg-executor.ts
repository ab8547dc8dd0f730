import type pg from 'pg';
import type { CompiledSql } from '../sql/calls-select.js';
import type { SqlExecutor } from '../sql/record-sql.js';
import { mapErrors } from './pg-support.js';
import { inTransaction } from './transaction.js';

/** Runs the shared record stores' SQL on the pool; a write list is one transaction. */
export class PgExecutor implements SqlExecutor {
  constructor(private readonly pool: pg.Pool) {}

  async all<T>(q: CompiledSql): Promise<T[]> {
    const { rows } = await mapErrors(() => this.pool.query(q.sql, q.params));
    return rows as T[];
  }

  write(statements: CompiledSql[], check?: (changed: number[]) => void): Promise<number[]> {
    return inTransaction(this.pool, async (client) => {
      const changed: number[] = [];
      for (const s of statements) changed.push((await client.query(s.sql, s.params)).rowCount ?? 0);
      check?.(changed);
      return changed;
    });
  }
}
