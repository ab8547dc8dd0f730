import { REF_PREFIX } from '../../domain/refs.js';
import type { NewBackgroundJob } from '../job-types.js';
import type {
  RetentionCounts,
  RetentionPolicyRow,
  RetentionPolicyWrite,
  RetentionStore,
  SpaceReport,
} from '../retention-types.js';
import { RollupDelta } from '../../domain/call-rollup.js';
import { ROLLUP_SOURCE_COLUMNS, rollupUpserts, toRollupSource } from './call-rollup-sql.js';
import { num, numOrNull, rowDecoder, text } from './row-decode.js';
import { type CompiledSql, raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, runAll, type TxDialect, type TxRunner } from './core/sql-tx.js';

const policyFromDb = rowDecoder<RetentionPolicyRow>({
  project_id: text,
  keep_days: num,
  updated_by: text,
  updated_at: num,
  next_run_at: num,
  last_run_at: numOrNull,
  last_cutoff: numOrNull,
  last_deleted_calls: numOrNull,
});

/** What removing `rows` takes from the call roll-up (only the rows it counts). */
function removedFromRollup(projectId: string, rows: Record<string, unknown>[]): RollupDelta {
  const delta = new RollupDelta();
  for (const row of rows) {
    const source = toRollupSource(row);
    if (source.rolled_up === 1) delta.add(projectId, source, -1);
  }
  return delta;
}

/** `weave:///entity/project/call/` — the prefix of a feedback `weave_ref` naming a call of the project. */
const callRefPrefix = (projectId: string): string => `${REF_PREFIX}${projectId}/call/`;

/**
 * Retention (docs/export.md "Retention") written once over the transaction runner. Deletion walks
 * `calls_by_start` (project_id, started_at, id) oldest first, one batch per transaction: on SQLite
 * one turn of the writer thread between ingest commits, on PostgreSQL row locks on at most one
 * batch of that project's calls, so ingest never waits for more than one batch. Giving the space
 * back differs per database and comes from the adapter (`reclaim`).
 */
export class SqlRetentionStore implements RetentionStore {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
    /** Calls per transaction when the caller does not say. */
    private readonly batchRows: number,
    private readonly reclaim: () => Promise<SpaceReport>,
    /**
     * Statements run before a batch of calls is deleted, in its transaction: PostgreSQL takes them out
     * of `call_counts` and `call_texts` (migration 031); SQLite's triggers do that.
     */
    private readonly beforeDelete: (projectId: string, ids: string[]) => CompiledSql[] = () => [],
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  async getPolicy(projectId: string): Promise<RetentionPolicyRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM retention_policies WHERE project_id = ${projectId}`,
    );
    return rows[0] === undefined ? null : policyFromDb(rows[0]);
  }

  async setPolicy(p: RetentionPolicyWrite): Promise<RetentionPolicyRow> {
    const sql = this.#sql;
    // read back in the same transaction: a concurrent removal cannot slip between the write and the read
    const [row] = await this.tx.transaction(function* () {
      yield* run(sql`INSERT INTO retention_policies (project_id, keep_days, updated_by, updated_at, next_run_at)
        VALUES (${p.project_id}, ${p.keep_days}, ${p.updated_by}, ${p.updated_at}, ${p.next_run_at})
        ON CONFLICT (project_id) DO UPDATE SET keep_days = excluded.keep_days, updated_by = excluded.updated_by,
        updated_at = excluded.updated_at, next_run_at = excluded.next_run_at`);
      return yield* all<Record<string, unknown>>(
        sql`SELECT * FROM retention_policies WHERE project_id = ${p.project_id}`,
      );
    });
    if (row === undefined) throw new Error(`retention policy of ${p.project_id} missing inside its own write`);
    return policyFromDb(row);
  }

  async deletePolicy(projectId: string): Promise<boolean> {
    const sql = this.#sql;
    const n = await this.tx.transaction(function* () {
      return yield* run(sql`DELETE FROM retention_policies WHERE project_id = ${projectId}`);
    });
    return n > 0;
  }

  async countExpired(projectId: string, cutoff: number): Promise<RetentionCounts> {
    const sql = this.#sql;
    const count = async (q: ReturnType<SqlTag>): Promise<number> => {
      const [row] = await this.tx.read<{ n: number | string }>(q);
      return Number(row?.n ?? 0);
    };
    return {
      calls: await count(
        sql`SELECT COUNT(*) AS n FROM calls WHERE project_id = ${projectId} AND started_at < ${cutoff}`,
      ),
      feedback: await count(sql`SELECT COUNT(*) AS n FROM feedback WHERE project_id = ${projectId} AND weave_ref IN
        (SELECT ${callRefPrefix(projectId)} || id FROM calls WHERE project_id = ${projectId} AND started_at < ${cutoff})`),
      annotation_queue_items: await count(sql`SELECT COUNT(*) AS n FROM annotation_queue_items
        WHERE project_id = ${projectId} AND call_id IN
        (SELECT id FROM calls WHERE project_id = ${projectId} AND started_at < ${cutoff})`),
      annotation_item_progress: await count(sql`SELECT COUNT(*) AS n FROM annotation_item_progress
        WHERE project_id = ${projectId} AND item_id IN (SELECT id FROM annotation_queue_items
        WHERE project_id = ${projectId} AND call_id IN
        (SELECT id FROM calls WHERE project_id = ${projectId} AND started_at < ${cutoff}))`),
    };
  }

  deleteExpiredBatch(projectId: string, cutoff: number, opts: { batchRows?: number } = {}): Promise<RetentionCounts> {
    const sql = this.#sql;
    const batch = opts.batchRows ?? this.batchRows;
    const d = this.dialect.d;
    // locked: a concurrent end of one of these calls moves the roll-up before or after, never between
    const forUpdate = raw(this.dialect.forUpdate);
    const beforeDelete = this.beforeDelete;
    return this.tx.transaction(function* () {
      const rows = yield* all<{ id: string } & Record<string, unknown>>(sql`SELECT id, ${raw(ROLLUP_SOURCE_COLUMNS)}
        FROM calls WHERE project_id = ${projectId} AND started_at < ${cutoff} ORDER BY started_at, id LIMIT ${batch} ${forUpdate}`);
      if (rows.length === 0) return { calls: 0, feedback: 0, annotation_queue_items: 0, annotation_item_progress: 0 };
      const ids = rows.map((r) => r.id);
      const prefix = callRefPrefix(projectId);
      const before = beforeDelete(projectId, ids);
      const results = yield* runAll([
        ...before,
        sql`DELETE FROM annotation_item_progress WHERE project_id = ${projectId} AND item_id IN
          (SELECT id FROM annotation_queue_items WHERE project_id = ${projectId} AND call_id IN ${ids})`,
        sql`DELETE FROM annotation_queue_items WHERE project_id = ${projectId} AND call_id IN ${ids}`,
        sql`DELETE FROM feedback WHERE project_id = ${projectId} AND weave_ref IN ${ids.map((id) => prefix + id)}`,
        sql`DELETE FROM calls WHERE project_id = ${projectId} AND id IN ${ids}`,
        // the call roll-up loses what the removed calls added (docs/call-rollups.md)
        ...rollupUpserts(removedFromRollup(projectId, rows), d),
      ]);
      const [progress, items, feedback, calls] = results.slice(before.length);
      return {
        calls: calls ?? 0,
        feedback: feedback ?? 0,
        annotation_queue_items: items ?? 0,
        annotation_item_progress: progress ?? 0,
      };
    });
  }

  async scheduleDue(
    now: number,
    intervalMicros: number,
    job: (policy: RetentionPolicyRow) => NewBackgroundJob,
  ): Promise<NewBackgroundJob[]> {
    const sql = this.#sql;
    const forUpdate = raw(this.dialect.forUpdate);
    const due = await this.tx.read<{ project_id: string }>(
      sql`SELECT project_id FROM retention_policies WHERE next_run_at <= ${now} ORDER BY next_run_at LIMIT 100`,
    );
    const queued: NewBackgroundJob[] = [];
    for (const { project_id } of due) {
      const j = await this.tx.transaction(function* () {
        const [row] = yield* all<Record<string, unknown>>(
          sql`SELECT * FROM retention_policies WHERE project_id = ${project_id} ${forUpdate}`,
        );
        // another node claimed this run first (it moved next_run_at) or the policy was removed
        if (row === undefined || Number(row.next_run_at) > now) return null;
        const next = job(policyFromDb(row));
        yield* runAll([
          sql`UPDATE retention_policies SET next_run_at = ${now + intervalMicros} WHERE project_id = ${project_id}`,
          sql`INSERT INTO background_jobs (project_id, id, kind, status, input, created_by, created_at, attempts,
            max_attempts, fencing_token) VALUES (${next.project_id}, ${next.id}, ${next.kind}, 'queued', ${next.input},
            ${next.created_by}, ${next.created_at}, 0, ${next.max_attempts}, 0)`,
        ]);
        return next;
      });
      if (j !== null) queued.push(j);
    }
    return queued;
  }

  async recordRun(projectId: string, r: { ran_at: number; cutoff: number; deleted_calls: number }): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* run(sql`UPDATE retention_policies SET last_run_at = ${r.ran_at}, last_cutoff = ${r.cutoff},
        last_deleted_calls = ${r.deleted_calls} WHERE project_id = ${projectId}`);
    });
  }

  reclaimSpace(): Promise<SpaceReport> {
    return this.reclaim();
  }
}
