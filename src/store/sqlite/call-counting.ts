import type Database from 'better-sqlite3';
import type { CompiledSql } from '../sql/core/sql-tag.js';
import { sqliteCovered } from '../sql/migrations/016-call-counts-and-latency.js';
import { writerStatement } from './statements.js';

/**
 * `call_counts` (migration 016) kept by the SQLite call writer, per batch: a start makes a call
 * visible in the hour of its `started_at` (and takes it out of the hour of an earlier start), so
 * the writer looks at the row as it stands before each start (the roll-up's working copy,
 * rollup-writes.ts, read once per call) and adds up the changes, then writes one upsert per
 * (project, hour) of its group instead of one per call (a row trigger cost about 20 µs per call;
 * docs/query-performance.md). Deletions are counted by triggers (tombstones change
 * `deleted_at`, retention deletes rows), and imported rows by the project import.
 *
 * While the backfill of existing calls is pending, only calls it has passed or will never pass are
 * counted here (the rest it counts itself when it reaches them; call-indexes/backfill.ts).
 */

const HOUR = 3_600_000_000;
const BUILD_SQL = 'SELECT cursor_project, cursor_id, bound_project, bound_id FROM call_index_builds';
const ADD_SQL = `INSERT INTO call_counts (project_id, bucket, calls) VALUES (?, ?, ?)
  ON CONFLICT (project_id, bucket) DO UPDATE SET calls = calls + excluded.calls`;

/** The columns of a stored call that decide where (and whether) it is counted. */
export interface StoredVisibility {
  started_at: number | null;
  deleted_at: number | null;
}

interface Build {
  cursor_project: string | null;
  cursor_id: string | null;
  bound_project: string;
  bound_id: string;
}

/** Byte order of (project, id), the order of the primary key. */
function compareKeys(p1: string, i1: string, p2: string, i2: string): number {
  return Buffer.compare(Buffer.from(p1), Buffer.from(p2)) || Buffer.compare(Buffer.from(i1), Buffer.from(i2));
}

export class CallCounting {
  readonly #deltas = new Map<string, { project: string; bucket: number; calls: number }>();
  readonly #build: Build | undefined;

  constructor(private readonly db: Database.Database) {
    this.#build = writerStatement(db, BUILD_SQL).get() as Build | undefined;
  }

  /** Call for a start of (project, id) with `startedAt`, given the row as it stands before it. */
  beforeStart(project: string, id: string, startedAt: number, stored: StoredVisibility): void {
    if (!this.#counted(project, id)) return;
    if (stored.deleted_at != null) return;
    if (stored.started_at != null) this.#add(project, Math.trunc(stored.started_at / HOUR), -1);
    this.#add(project, Math.trunc(startedAt / HOUR), 1);
  }

  /** Adds this write's changes to its group's (call-writes.ts `deferSums`). */
  mergeInto(group: CallCounting): void {
    for (const { project, bucket, calls } of this.#deltas.values()) group.#add(project, bucket, calls);
  }

  /** Writes the changes (in the same transaction). */
  flush(): void {
    const add = writerStatement(this.db, ADD_SQL);
    for (const { project, bucket, calls } of this.#deltas.values()) if (calls !== 0) add.run(project, bucket, calls);
  }

  #counted(project: string, id: string): boolean {
    const b = this.#build;
    if (b === undefined) return true;
    if (b.cursor_project !== null && compareKeys(project, id, b.cursor_project, b.cursor_id!) <= 0) return true;
    return compareKeys(project, id, b.bound_project, b.bound_id) > 0;
  }

  #add(project: string, bucket: number, calls: number): void {
    const key = `${bucket}\u0000${project}`;
    const entry = this.#deltas.get(key);
    if (entry) entry.calls += calls;
    else this.#deltas.set(key, { project, bucket, calls });
  }
}

/** Counts calls a project import inserted (they bypass the writer; project-transfer.ts `afterInsert`). */
export function countImportedCalls(projectId: string, ids: unknown[]): CompiledSql {
  return {
    sql: `INSERT INTO call_counts (project_id, bucket, calls)
      SELECT c.project_id, c.started_at / ${HOUR}, COUNT(*) FROM calls c
      WHERE c.project_id = @p1 AND c.id IN (${ids.map((_, i) => `@p${i + 2}`).join(', ')})
        AND c.started_at IS NOT NULL AND c.deleted_at IS NULL AND ${sqliteCovered('c')}
      GROUP BY 1, 2
      ON CONFLICT (project_id, bucket) DO UPDATE SET calls = calls + excluded.calls`,
    params: [projectId, ...ids],
  };
}
