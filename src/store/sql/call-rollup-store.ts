import { RollupDelta, SUM_COLUMNS, type RollupLatencyRow, type RollupStatsRow } from '../../domain/call-rollup.js';
import type { CallKeyCursor, CallRollupStore, RollupBackfillBatch, RollupRead } from '../rollup-types.js';
import {
  LATENCY_COLUMNS,
  ROLLUP_SOURCE_COLUMNS,
  rollupUpserts,
  STATS_COLUMNS,
  toRollupSource,
} from './call-rollup-sql.js';
import { frag, raw, sqlTag, type Fragment, type SqlTag } from './core/sql-tag.js';
import { all, runAll, type TxDialect, type TxRunner } from './core/sql-tx.js';

const STATE = 'calls_hourly';

const keyFields = (r: Record<string, unknown>, projectId: string) => ({
  project_id: projectId,
  hour: Number(r.hour),
  op_name: String(r.op_name),
  status: String(r.status),
  scope: Number(r.scope),
  model: String(r.model),
});

/**
 * The call roll-up's reads and backfill (docs/call-rollups.md), written once over the transaction
 * runner. The writes that keep it in step live with the call writers of each adapter.
 */
export class SqlCallRollupStore implements CallRollupStore {
  readonly #sql: SqlTag;

  /**
   * `pending`: SELECTs of the changes not folded into each table yet, as that table's columns, from
   * rows aliased `p` with a `project_id` (PostgreSQL, rollup-pending.ts); reads add them.
   */
  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
    private readonly pending: { stats: string; latency: string } | null = null,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  /** The rows of `table` to read for one project: the table's, and its pending changes if any. */
  #rows(table: 'call_rollups' | 'call_rollup_latency', projectId: string): Fragment {
    const pending = table === 'call_rollups' ? this.pending?.stats : this.pending?.latency;
    if (pending === undefined) return frag`${raw(table)}`;
    const columns = raw((table === 'call_rollups' ? STATS_COLUMNS : LATENCY_COLUMNS).join(', '));
    return frag`(SELECT ${columns} FROM ${raw(table)} WHERE project_id = ${projectId}
      UNION ALL ${raw(pending)} WHERE p.project_id = ${projectId}) AS r`;
  }

  async complete(): Promise<boolean> {
    const [row] = await this.tx.read<{ complete: number | string }>(
      this.#sql`SELECT complete FROM call_rollup_state WHERE name = ${STATE}`,
    );
    return row !== undefined && Number(row.complete) === 1;
  }

  async read(q: RollupRead): Promise<{ stats: RollupStatsRow[]; latency: RollupLatencyRow[] }> {
    const sql = this.#sql;
    const where = frag`project_id = ${q.projectId} AND hour >= ${q.from} AND hour < ${q.to} AND scope IN ${[...q.scopes]}`;
    // the bucket start, op and status as the answer groups them; summed here so few rows cross over
    // CAST: SQLite binds JavaScript numbers as REAL, and a REAL division would not truncate
    const bucket = frag`${q.origin} + CAST((hour - ${q.origin}) / ${q.width} AS BIGINT) * ${q.width}`;
    const op = raw(q.byOp ? 'op_name' : "''");
    const status = raw(q.byStatus ? 'status' : "''");
    const keys = frag`${bucket} AS hour, ${op} AS op_name, ${status} AS status, scope, model`;
    const sums = raw(SUM_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(', '));
    // grouped by position: the bucket expression binds its own parameters wherever it is written
    const stats = await this.tx.read<Record<string, unknown>>(
      sql`SELECT ${keys}, ${sums} FROM ${this.#rows('call_rollups', q.projectId)} WHERE ${where} GROUP BY 1, 2, 3, 4, 5`,
    );
    const range = frag`project_id = ${q.projectId} AND hour >= ${q.from} AND hour < ${q.to}`;
    const bins =
      q.latencyScopes.length > 0
        ? await this.tx.read<Record<string, unknown>>(
            sql`SELECT ${keys}, bin, SUM(calls) AS calls FROM ${this.#rows('call_rollup_latency', q.projectId)}
              WHERE ${range} AND scope IN ${[...q.latencyScopes]} AND calls <> 0 GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM(calls) <> 0`,
          )
        : [];
    return {
      stats: stats.map((r) => {
        const row = keyFields(r, q.projectId) as RollupStatsRow;
        for (const c of SUM_COLUMNS) row[c] = Number(r[c]);
        return row;
      }),
      latency: bins.map((r) => ({ ...keyFields(r, q.projectId), bin: Number(r.bin), calls: Number(r.calls) })),
    };
  }

  /**
   * One project per batch: a locking read stays within one project, which under Citus is one shard
   * (a locking scan across shards is refused there). A project read to its end moves the cursor to
   * the next project with calls (`id` '' sorts before every id).
   */
  async backfillBatch(after: CallKeyCursor | null, limit: number): Promise<RollupBackfillBatch> {
    let cursor = after ?? (await this.#firstCallOf(null));
    while (cursor !== null) {
      const batch = await this.#backfillProject(cursor.project_id, cursor.id, limit);
      if (batch.read > 0) return batch;
      cursor = await this.#firstCallOf(cursor.project_id);
    }
    return { read: 0, added: 0, next: null };
  }

  /** The cursor before the first call of the next project after `project` (or the first), null after the last. */
  async #firstCallOf(project: string | null): Promise<CallKeyCursor | null> {
    const sql = this.#sql;
    const after = project === null ? frag`` : frag`WHERE project_id > ${project}`;
    const [row] = await this.tx.read<{ p: string | null }>(sql`SELECT MIN(project_id) AS p FROM calls ${after}`);
    return row?.p == null ? null : { project_id: String(row.p), id: '' };
  }

  #backfillProject(project: string, afterId: string, limit: number): Promise<RollupBackfillBatch> {
    const sql = this.#sql;
    const d = this.dialect.d;
    const forUpdate = raw(this.dialect.forUpdate);
    return this.tx.transaction(function* () {
      // locked in key order, the call writers' lock order: a concurrent write of one of these calls
      // either comes first (and marks it counted) or waits and then sees it counted
      const rows = yield* all<Record<string, unknown>>(sql`SELECT id, ${raw(ROLLUP_SOURCE_COLUMNS)} FROM calls
        WHERE project_id = ${project} AND id > ${afterId} ORDER BY id LIMIT ${limit} ${forUpdate}`);
      const delta = new RollupDelta();
      const counted: string[] = [];
      for (const row of rows) {
        const source = toRollupSource(row);
        if (source.rolled_up === 1) continue;
        delta.add(project, source, 1);
        counted.push(String(row.id));
      }
      const marks = counted.map(
        (id) => sql`UPDATE calls SET rolled_up = 1 WHERE project_id = ${project} AND id = ${id}`,
      );
      if (marks.length > 0) yield* runAll([...marks, ...rollupUpserts(delta, d)]);
      const last = rows[rows.length - 1];
      return {
        read: rows.length,
        added: counted.length,
        next: last === undefined ? null : { project_id: project, id: String(last.id) },
      };
    });
  }

  async completeIfAllCounted(now: number): Promise<boolean> {
    const sql = this.#sql;
    return this.tx.transaction(function* () {
      const uncounted = yield* all(sql`SELECT 1 AS one FROM calls WHERE rolled_up = 0 LIMIT 1`);
      if (uncounted.length > 0) return false;
      yield* runAll([sql`UPDATE call_rollup_state SET complete = 1, updated_at = ${now} WHERE name = ${STATE}`]);
      return true;
    });
  }

  async markComplete(now: number): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* runAll([sql`UPDATE call_rollup_state SET complete = 1, updated_at = ${now} WHERE name = ${STATE}`]);
    });
  }
}
