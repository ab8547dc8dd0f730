import type Database from 'better-sqlite3';
import type { CallTextStep } from '../call-text-types.js';
import { SQLITE_TEXT_INDEX } from '../sql/call-indexes/text-dialects.js';
import { indexerStepBody, type IndexerStep } from '../sql/call-indexes/text-index.js';
import { driveSync } from '../sql/core/sql-tx.js';
import { sqliteDialect } from './sqlite-dialect.js';
import { execTxOp } from './tx-writes.js';

const TEXT_INDEX = SQLITE_TEXT_INDEX(sqliteDialect);

/**
 * One step of the call indexer (call-indexes/text-index.ts `indexerStepBody`) run whole on the writer
 * thread: a `tx.run` transaction would wait for the main thread at each of its statements, which a
 * long read there (a query over the calls not indexed yet) holds up, and the writer with it.
 */
export function callIndexerStep(db: Database.Database, step: IndexerStep): CallTextStep {
  return driveSync(indexerStepBody(TEXT_INDEX, step), (op) => execTxOp(db, op));
}
