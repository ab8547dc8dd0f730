import type Database from 'better-sqlite3';
import { RollupDelta, type RollupSource } from '../../domain/call-rollup.js';
import {
  LATENCY_COLUMNS,
  LATENCY_UPSERT_SQL,
  ROLLUP_SOURCE_COLUMNS,
  STATS_COLUMNS,
  STATS_UPSERT_SQL,
  type RollupSourceRow,
} from '../sql/call-rollup-sql.js';
import { writerStatement } from './statements.js';

/**
 * The call roll-up's share of the SQLite writes (docs/call-rollups.md), run on the writer thread in
 * the transaction of the call write: a write reads the row's roll-up columns before and after it
 * changes the row, the delta subtracts the old contribution (when the row was counted) and adds the
 * new one, and the merged delta is added to the roll-up tables once per write.
 */

const SOURCE_SQL = `SELECT ${ROLLUP_SOURCE_COLUMNS} FROM calls WHERE project_id = ? AND id = ?`;

/** The row's roll-up columns, or undefined when there is no row. */
export function rollupSource(db: Database.Database, projectId: string, id: string): RollupSourceRow | undefined {
  return writerStatement(db, SOURCE_SQL).get(projectId, id) as RollupSourceRow | undefined;
}

/** Takes away what a counted row contributed before a write changes or removes it. */
export function subtractRow(delta: RollupDelta, projectId: string, before: RollupSourceRow | undefined): void {
  if (before !== undefined && before.rolled_up === 1) delta.add(projectId, before, -1);
}

/** Adds what the row contributes after a write (the write set its `rolled_up`). */
export function addRow(delta: RollupDelta, projectId: string, after: RollupSourceRow | undefined): void {
  if (after !== undefined) delta.add(projectId, after, 1);
}

/** Adds a merged delta to the roll-up tables. */
export function applyRollupDelta(db: Database.Database, delta: RollupDelta): void {
  const stats = writerStatement(db, STATS_UPSERT_SQL);
  for (const row of delta.statsRows()) stats.run(STATS_COLUMNS.map((c) => row[c]));
  const latency = writerStatement(db, LATENCY_UPSERT_SQL);
  for (const row of delta.latencyRows()) latency.run(LATENCY_COLUMNS.map((c) => row[c]));
}

/** A call write wrapped so the roll-up follows it: `write` changes the row (and sets `rolled_up`). */
export function rolledUpWrite(
  db: Database.Database,
  delta: RollupDelta,
  projectId: string,
  id: string,
  write: () => void,
): void {
  subtractRow(delta, projectId, rollupSource(db, projectId, id));
  write();
  addRow(delta, projectId, rollupSource(db, projectId, id));
}

/** The roll-up columns of many calls of one project, by id, in one statement (ids as a JSON array). */
const SOURCES_SQL = `SELECT id, ${ROLLUP_SOURCE_COLUMNS} FROM calls
  WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))`;

type WorkingCall = { projectId: string; before: RollupSourceRow | undefined; after: RollupSource };

/**
 * The calls one write changes, for the roll-up: each call's columns are read once, before its first
 * part, and the parts are applied to that copy by the rules of the statements in call-writes.ts (a
 * start sets `op_name` and `started_at`, an end `ended_at`, `exception` and `summary`, a rename
 * nothing the roll-up reads), so no read follows the write. Calls whose first part is not a start
 * are read in one statement per project (`load`); a call whose first part is a start is first
 * inserted as a new row, and only read (`read`) when that insert finds a stored one: a batch of
 * new calls, the common ingest, reads nothing. The contract test
 * (test/store/contract/call-rollups.test.ts) compares the result with a scan of the stored rows.
 */
export class RolledUpCalls {
  /** Working calls by project, then id. */
  readonly #calls = new Map<string, Map<string, WorkingCall>>();

  constructor(private readonly db: Database.Database) {}

  /** Reads the stored columns of every (project, id) given, before any part is applied. */
  load(keys: Iterable<[projectId: string, id: string]>): void {
    const byProject = new Map<string, string[]>();
    for (const [projectId, id] of keys) {
      if (this.has(projectId, id)) continue;
      this.#set(projectId, id, undefined);
      let ids = byProject.get(projectId);
      if (!ids) byProject.set(projectId, (ids = []));
      ids.push(id);
    }
    const read = writerStatement(this.db, SOURCES_SQL);
    for (const [projectId, ids] of byProject) {
      for (const row of read.all(projectId, JSON.stringify(ids)) as (RollupSourceRow & { id: string })[]) {
        const { id, ...before } = row;
        this.#set(projectId, id, before);
      }
    }
  }

  /** Whether the call has a working copy (it was loaded or has had a part applied). */
  has(projectId: string, id: string): boolean {
    return this.#calls.get(projectId)?.has(id) ?? false;
  }

  /** A call this write inserted: nothing was stored before it. */
  inserted(projectId: string, id: string): void {
    this.#set(projectId, id, undefined);
  }

  /** Reads one call's stored columns (before any part of this write changes the row). */
  read(projectId: string, id: string): void {
    this.#set(projectId, id, rollupSource(this.db, projectId, id));
  }

  /** The working copy of a call: as stored, with the parts applied so far. */
  current(projectId: string, id: string): RollupSource {
    return this.#call(projectId, id);
  }

  #call(projectId: string, id: string): RollupSource {
    const call = this.#calls.get(projectId)?.get(id);
    if (call) return call.after;
    return this.#set(projectId, id, rollupSource(this.db, projectId, id)).after;
  }

  #set(projectId: string, id: string, before: RollupSourceRow | undefined): WorkingCall {
    let calls = this.#calls.get(projectId);
    if (!calls) this.#calls.set(projectId, (calls = new Map()));
    const call = { projectId, before, after: before ? { ...before } : { ...EMPTY } };
    calls.set(id, call);
    return call;
  }

  started(projectId: string, id: string, opName: string | null, startedAt: number | null): void {
    const row = this.#call(projectId, id);
    row.op_name = opName;
    row.started_at = startedAt;
  }

  ended(projectId: string, id: string, endedAt: number | null, exception: string | null, summary: string | null): void {
    const row = this.#call(projectId, id);
    row.ended_at = endedAt;
    row.exception = exception;
    row.summary = summary;
  }

  /** A rename: nothing the roll-up reads changes, but the write marks the row counted. */
  touched(projectId: string, id: string): void {
    this.#call(projectId, id);
  }

  /** After every part is applied: adds the difference each call makes to `delta`. */
  addTo(delta: RollupDelta): void {
    for (const calls of this.#calls.values())
      for (const { projectId, before, after } of calls.values()) {
        subtractRow(delta, projectId, before);
        delta.add(projectId, after, 1);
      }
  }
}

const EMPTY: RollupSource = {
  started_at: null,
  deleted_at: null,
  op_name: null,
  ended_at: null,
  exception: null,
  summary: null,
};
