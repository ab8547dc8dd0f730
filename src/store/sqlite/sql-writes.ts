import type Database from 'better-sqlite3';
import type { CompiledSql } from '../sql/calls-select.js';
import { bindNamed, writerStatement } from './statements.js';

/** Compiled statement lists, run on the writer connection in the writer thread. */

export interface StatementListArgs {
  statements: CompiledSql[];
  /**
   * null: keep the changes. 'dry': roll them back and only report the counts. Counts: keep the
   * changes only when each statement changed exactly that many rows (else roll back and report).
   */
  keepIf: null | 'dry' | number[];
}

const ROLL_BACK = Symbol('roll back');

/** Runs the statements in one savepoint; `kept` says whether their changes stay in the commit. */
export function runStatements(db: Database.Database, a: StatementListArgs): { changed: number[]; kept: boolean } {
  let changed: number[] = [];
  try {
    db.transaction(() => {
      changed = a.statements.map((s) => writerStatement(db, s.sql).run(bindNamed(s.params)).changes);
      if (a.keepIf === 'dry' || (a.keepIf !== null && !sameCounts(changed, a.keepIf))) throw ROLL_BACK;
    })();
  } catch (error) {
    if (error !== ROLL_BACK) throw error;
    return { changed, kept: false };
  }
  return { changed, kept: true };
}

function sameCounts(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}
