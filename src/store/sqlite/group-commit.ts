import type Database from 'better-sqlite3';
import { discardCallSums, flushCallSums } from './call-writes.js';
import { WRITE_COMMANDS, type WriteName } from './write-commands.js';

/** A queued write as it crosses to the writer thread: its id, command name and arguments. */
export type WireWrite = [id: number, name: WriteName, args: unknown];
/** An error as it crosses back (class identity does not survive the thread boundary). */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}
export type WireOutcome = [id: number, ok: true, value: unknown] | [id: number, ok: false, error: WireError];

/**
 * Commands that run in their own transactions, outside a group (migrations commit step by step;
 * `incremental_vacuum` releases pages as its own write).
 */
const STANDALONE: ReadonlySet<WriteName> = new Set(['migrate', 'space.reclaim']);

/**
 * Group commit: the writes are applied in one transaction, each inside its own savepoint so one
 * failing write does not undo the others. Outcomes are only reported after the commit.
 *
 * Consecutive call writes leave their roll-up and counter changes for the end of their run
 * (call-writes.ts `flushCallSums`): written before any other write of the group, which may read
 * or delete those rows, and before the commit.
 */
export function applyWrites(db: Database.Database, writes: WireWrite[]): WireOutcome[] {
  const outcomes: WireOutcome[] = [];
  let group: WireWrite[] = [];
  for (const write of writes) {
    if (!STANDALONE.has(write[1])) {
      group.push(write);
      continue;
    }
    if (group.length > 0) outcomes.push(...applyGroup(db, group));
    group = [];
    outcomes.push(...applyGroup(db, [write], false));
  }
  if (group.length > 0) outcomes.push(...applyGroup(db, group));
  return outcomes;
}

function applyGroup(db: Database.Database, writes: WireWrite[], inTransaction = true): WireOutcome[] {
  const outcomes: WireOutcome[] = [];
  const applyAll = (): void => {
    for (const [id, name, args] of writes) {
      if (name !== 'calls.write') flushCallSums(db);
      const command = WRITE_COMMANDS[name] as (db: Database.Database, args: unknown) => unknown;
      try {
        outcomes.push([id, true, inTransaction ? db.transaction(command)(db, args) : command(db, args)]);
      } catch (error) {
        // SQLite rolls the whole transaction back on some errors (SQLITE_FULL, SQLITE_IOERR): the
        // writes before this one are gone too, and the ones after would each commit on their own.
        // Failing the group reports every write of it as failed, which is what happened.
        if (inTransaction && !db.inTransaction) throw error;
        outcomes.push([id, false, toWireError(error)]);
      }
      if (!inTransaction) flushCallSums(db);
    }
    flushCallSums(db);
  };
  try {
    // IMMEDIATE: the write lock is taken (with the busy timeout) before any statement runs. A
    // deferred BEGIN opens a read transaction at a write's first read, and SQLite fails the
    // upgrade to a write at once, without waiting, while another connection holds the lock.
    if (inTransaction) db.transaction(applyAll).immediate();
    else applyAll();
  } catch (error) {
    discardCallSums(db);
    const failed = toWireError(error);
    return writes.map(([id]): WireOutcome => [id, false, failed]);
  }
  return outcomes;
}

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

export function fromWireError(wire: WireError): Error {
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.code !== undefined) Object.assign(error, { code: wire.code });
  return error;
}
