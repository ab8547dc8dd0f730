import type Database from 'better-sqlite3';
import type { AgentSpanRecord } from '../agent-types.js';
import { writeSpans } from '../sql/agent-span-writes.js';
import { sqlTag } from '../sql/core/sql-tag.js';
import { driveSync } from '../sql/core/sql-tx.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { execTxOp } from './tx-writes.js';

const SQL = sqlTag(sqliteDialect);

/**
 * A batch of agent spans (sql/agent-span-writes.ts `writeSpans`: the rows, their messages and
 * attributes, the traces' attribution) written whole on the writer thread, inside the write's savepoint.
 */
export function writeAgentSpans(
  db: Database.Database,
  args: { records: AgentSpanRecord[]; ifAbsent: boolean },
): number {
  return driveSync(
    () => writeSpans(SQL, args.records, args.ifAbsent),
    (op) => execTxOp(db, op),
  );
}
