import type Database from 'better-sqlite3';
import { RollupDelta } from '../../domain/call-rollup.js';
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

/**
 * The calls one write changes, for the roll-up: each call's columns are read before its first part
 * and after the last, so a start and an end in the same write cost two reads, not four (the
 * contributions in between cancel out).
 */
export class RolledUpCalls {
  readonly #before = new Map<string, { projectId: string; id: string; row: RollupSourceRow | undefined }>();

  constructor(private readonly db: Database.Database) {}

  /** Call before each part is applied. */
  before(projectId: string, id: string): void {
    const key = `${projectId}\u0000${id}`;
    if (!this.#before.has(key)) this.#before.set(key, { projectId, id, row: rollupSource(this.db, projectId, id) });
  }

  /** Call after every part is applied: moves the roll-up by the difference. */
  apply(): void {
    const delta = new RollupDelta();
    for (const { projectId, id, row } of this.#before.values()) {
      subtractRow(delta, projectId, row);
      addRow(delta, projectId, rollupSource(this.db, projectId, id));
    }
    applyRollupDelta(this.db, delta);
  }
}
