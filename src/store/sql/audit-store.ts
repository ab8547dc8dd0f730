import type { AuditAction, AuditRecord, AuditStore } from '../audit-types.js';
import { compileInsert } from './record-sql.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';
import { run, type TxRunner } from './core/sql-tx.js';

const COLUMNS = 'entity, id, at, user_id, username, key_id, action, target, details';

/**
 * The audit log (table `audit_log`, migration 12) written once over the transaction runner
 * (core/sql-tx.ts), so both adapters share it. Keyed (entity, id) with UUIDv7 ids.
 */
export class SqlAuditStore implements AuditStore {
  constructor(
    private readonly tx: TxRunner,
    private readonly d: SqlDialect,
  ) {}

  async append(entry: AuditRecord): Promise<void> {
    const insert = compileInsert('audit_log', { ...entry }, this.d);
    await this.tx.transaction(function* () {
      yield* run(insert);
    });
  }

  async list(entity: string, opts: { limit: number; before?: string; action?: AuditAction }): Promise<AuditRecord[]> {
    const p = new SqlParams(this.d);
    const where = [`entity = ${p.add(entity)}`];
    if (opts.before !== undefined) where.push(`id < ${p.add(opts.before)}`);
    if (opts.action !== undefined) where.push(`action = ${p.add(opts.action)}`);
    const sql = `SELECT ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${p.add(opts.limit)}`;
    const rows = await this.tx.read<Record<string, unknown>>({ sql, params: p.values });
    return rows.map((r) => ({ ...r, at: Number(r.at) }) as AuditRecord);
  }
}
