import type { NewBackgroundJob } from '../job-types.js';
import type { MonitorCursorRow, MonitorStore } from '../monitor-types.js';
import type { CallChangeCursor } from '../types.js';
import { insertJobSql } from './job-queue.js';
import { raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, runAll, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';

function cursorFromDb(r: Record<string, unknown>): MonitorCursorRow {
  return {
    project_id: String(r.project_id),
    monitor_id: String(r.monitor_id),
    active: Number(r.active) === 1,
    caller: String(r.caller),
    cursor: { seq: Number(r.cursor_seq), id: String(r.cursor_id) },
    scan_job_id: (r.scan_job_id as string | null) ?? null,
    updated_at: Number(r.updated_at),
  };
}

/** Online monitors' cursors and scoring keys (docs/monitors.md) over any adapter's transaction runner. */
export class SqlMonitorStore implements MonitorStore {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  *#lock(projectId: string, monitorId: string): Tx<MonitorCursorRow | null> {
    const rows = yield* all<Record<string, unknown>>(this.#sql`SELECT * FROM monitor_cursors
      WHERE project_id = ${projectId} AND monitor_id = ${monitorId} ${raw(this.dialect.forUpdate)}`);
    return rows[0] === undefined ? null : cursorFromDb(rows[0]);
  }

  async follow(a: {
    projectId: string;
    monitorId: string;
    active: boolean;
    caller: string;
    head: CallChangeCursor;
    now: number;
  }): Promise<void> {
    const sql = this.#sql;
    const self = this;
    const active = a.active ? 1 : 0;
    await this.tx.transaction(function* () {
      const row = yield* self.#lock(a.projectId, a.monitorId);
      if (row === null) {
        // two nodes publishing the first version at once: the second insert changes nothing
        yield* run(sql`INSERT INTO monitor_cursors (project_id, monitor_id, active, caller, cursor_seq, cursor_id, updated_at)
          VALUES (${a.projectId}, ${a.monitorId}, ${active}, ${a.caller}, ${a.head.seq}, ${a.head.id}, ${a.now})
          ON CONFLICT (project_id, monitor_id) DO NOTHING`);
      } else if (a.active && !row.active) {
        yield* run(sql`UPDATE monitor_cursors SET active = 1, caller = ${a.caller}, cursor_seq = ${a.head.seq},
          cursor_id = ${a.head.id}, updated_at = ${a.now} WHERE project_id = ${a.projectId} AND monitor_id = ${a.monitorId}`);
      } else {
        yield* run(sql`UPDATE monitor_cursors SET active = ${active}, caller = ${a.caller}, updated_at = ${a.now}
          WHERE project_id = ${a.projectId} AND monitor_id = ${a.monitorId}`);
      }
    });
  }

  async get(projectId: string, monitorId: string): Promise<MonitorCursorRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM monitor_cursors WHERE project_id = ${projectId} AND monitor_id = ${monitorId}`,
    );
    return rows[0] === undefined ? null : cursorFromDb(rows[0]);
  }

  async listActive(limit: number): Promise<MonitorCursorRow[]> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM monitor_cursors WHERE active = 1 ORDER BY project_id, monitor_id LIMIT ${limit}`,
    );
    return rows.map(cursorFromDb);
  }

  claimScan(projectId: string, monitorId: string, job: NewBackgroundJob, retryMicros = 0): Promise<boolean> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      const row = yield* self.#lock(projectId, monitorId);
      if (row === null || !row.active) return false;
      if (row.scan_job_id !== null) {
        const held = yield* all(sql`SELECT 1 AS one FROM background_jobs WHERE project_id = ${projectId}
          AND id = ${row.scan_job_id} AND (status IN ('queued', 'running')
            OR (status = 'failed' AND finished_at > ${job.created_at - retryMicros}))`);
        if (held.length > 0) return false;
        // a scan that succeeded says nothing the cursor does not: one row per monitor, not one per scan
        yield* run(sql`DELETE FROM background_jobs WHERE project_id = ${projectId} AND id = ${row.scan_job_id}
          AND status = 'succeeded'`);
      }
      yield* run(insertJobSql(sql, job));
      yield* run(sql`UPDATE monitor_cursors SET scan_job_id = ${job.id}, updated_at = ${job.created_at}
        WHERE project_id = ${projectId} AND monitor_id = ${monitorId}`);
      return true;
    });
  }

  async record(
    projectId: string,
    monitorId: string,
    cursor: CallChangeCursor,
    callIds: string[],
    now: number,
  ): Promise<void> {
    const sql = this.#sql;
    const inserts = callIds.map(
      (callId) => sql`INSERT INTO monitor_scores (project_id, monitor_id, call_id, status, sampled_at)
        VALUES (${projectId}, ${monitorId}, ${callId}, 'pending', ${now}) ON CONFLICT (project_id, monitor_id, call_id) DO NOTHING`,
    );
    await this.tx.transaction(function* () {
      if (inserts.length > 0) yield* runAll(inserts);
      yield* run(sql`UPDATE monitor_cursors SET cursor_seq = ${cursor.seq}, cursor_id = ${cursor.id}, updated_at = ${now}
        WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND (cursor_seq, cursor_id) < (${cursor.seq}, ${cursor.id})`);
    });
  }

  async pending(projectId: string, monitorId: string, limit: number): Promise<string[]> {
    const rows = await this.tx.read<{ call_id: string }>(this.#sql`SELECT call_id FROM monitor_scores
      WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND status = 'pending'
      ORDER BY sampled_at, call_id LIMIT ${limit}`);
    return rows.map((r) => r.call_id);
  }

  async markScored(projectId: string, monitorId: string, callIds: string[], now: number): Promise<void> {
    if (callIds.length === 0) return;
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* run(sql`UPDATE monitor_scores SET status = 'scored', scored_at = ${now}
        WHERE project_id = ${projectId} AND monitor_id = ${monitorId} AND call_id IN ${callIds} AND status = 'pending'`);
    });
  }

  async pairs(projectId: string, monitorId: string): Promise<Array<{ call_id: string; status: 'pending' | 'scored' }>> {
    return this.tx.read(this.#sql`SELECT call_id, status FROM monitor_scores
      WHERE project_id = ${projectId} AND monitor_id = ${monitorId} ORDER BY call_id`);
  }
}
