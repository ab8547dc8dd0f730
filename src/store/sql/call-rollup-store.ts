import { RollupDelta, SUM_COLUMNS, type RollupLatencyRow, type RollupStatsRow } from '../../domain/call-rollup.js';
import type { CallKeyCursor, CallRollupStore, RollupBackfillBatch, RollupRead } from '../rollup-types.js';
import { ROLLUP_SOURCE_COLUMNS, rollupUpserts, toRollupSource } from './call-rollup-sql.js';
import { frag, raw, sqlTag, type SqlTag } from './sql-tag.js';
import { all, runAll, type TxDialect, type TxRunner } from './sql-tx.js';

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

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
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
      sql`SELECT ${keys}, ${sums} FROM call_rollups WHERE ${where} GROUP BY 1, 2, 3, 4, 5`,
    );
    const range = frag`project_id = ${q.projectId} AND hour >= ${q.from} AND hour < ${q.to}`;
    const bins =
      q.latencyScopes.length > 0
        ? await this.tx.read<Record<string, unknown>>(
            sql`SELECT ${keys}, bin, SUM(calls) AS calls FROM call_rollup_latency
              WHERE ${range} AND scope IN ${[...q.latencyScopes]} AND calls <> 0 GROUP BY 1, 2, 3, 4, 5, 6`,
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

  backfillBatch(after: CallKeyCursor | null, limit: number): Promise<RollupBackfillBatch> {
    const sql = this.#sql;
    const d = this.dialect.d;
    const forUpdate = raw(this.dialect.forUpdate);
    const from = after === null ? frag`` : frag`WHERE (project_id, id) > (${after.project_id}, ${after.id})`;
    return this.tx.transaction(function* () {
      // locked in key order, the call writers' lock order: a concurrent write of one of these calls
      // either comes first (and marks it counted) or waits and then sees it counted
      const rows = yield* all<Record<string, unknown>>(sql`SELECT project_id, id, ${raw(ROLLUP_SOURCE_COLUMNS)}
        FROM calls ${from} ORDER BY project_id, id LIMIT ${limit} ${forUpdate}`);
      const delta = new RollupDelta();
      const counted: { project_id: string; id: string }[] = [];
      for (const row of rows) {
        const source = toRollupSource(row);
        if (source.rolled_up === 1) continue;
        delta.add(String(row.project_id), source, 1);
        counted.push({ project_id: String(row.project_id), id: String(row.id) });
      }
      const marks = counted.map(
        (k) => sql`UPDATE calls SET rolled_up = 1 WHERE project_id = ${k.project_id} AND id = ${k.id}`,
      );
      if (marks.length > 0) yield* runAll([...marks, ...rollupUpserts(delta, d)]);
      const last = rows[rows.length - 1];
      return {
        read: rows.length,
        added: counted.length,
        next: last === undefined ? null : { project_id: String(last.project_id), id: String(last.id) },
      };
    });
  }

  async markComplete(now: number): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* runAll([sql`UPDATE call_rollup_state SET complete = 1, updated_at = ${now} WHERE name = ${STATE}`]);
    });
  }
}
