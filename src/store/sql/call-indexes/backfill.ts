import type { CallIndexProgress, CallIndexStore } from '../../call-index-types.js';
import { type CompiledSql, frag, raw, sqlTag, type Fragment, type SqlTag } from '../core/sql-tag.js';
import { latencyMsSql } from '../calls-query/latency.js';
import { CALL_INDEX_LOCK_KEY } from '../migrations/016-call-counts-and-latency.js';
import { all, runAll, type TxRunner } from '../core/sql-tx.js';
import type { SqlDialect } from '../core/sql-dialect.js';

const HOUR = 3_600_000_000;
/** How long a "not ready" answer is reused before the position is read again. */
const POSITION_TTL_MS = 1_000;

/** What the backfill's SQL needs from each database. */
export interface BackfillDialect {
  d: SqlDialect;
  /** Statement that takes the backfill's lock for the transaction, or null (SQLite: one writer). */
  lock: string | null;
}

export const SQLITE_BACKFILL = (d: SqlDialect): BackfillDialect => ({ d, lock: null });

export const POSTGRES_BACKFILL = (d: SqlDialect): BackfillDialect => ({
  d,
  lock: `SELECT pg_advisory_xact_lock(${CALL_INDEX_LOCK_KEY})`,
});

interface BuildRow {
  cursor_project: string | null;
  cursor_id: string | null;
  bound_project: string | null;
  bound_id: string | null;
  calls_done: number;
}

const BUILD_COLUMNS = raw('cursor_project, cursor_id, bound_project, bound_id, calls_done');

/** The row is there only while the backfill is pending (migration 016). */
const toProgress = (r: BuildRow | undefined): CallIndexProgress =>
  r === undefined
    ? { done: true, calls_done: 0, cursor_project: null, bound_project: null }
    : {
        done: false,
        calls_done: Number(r.calls_done),
        cursor_project: r.cursor_project,
        bound_project: r.bound_project,
      };

/** Byte order, the order of both databases' keys (SQLite BINARY, PostgreSQL COLLATE "C"). */
const before = (a: string, b: string): boolean => Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;

/**
 * The backfill of migration 016's counters and latency column, written once over the transaction
 * runner. Each batch is one transaction over the next calls in primary-key order: their visible
 * calls are added to `call_counts`, `latency_ms` set where missing, and the cursor moved past them.
 * (`call_values` is not the backfill's: the call indexer fills it with the substring index,
 * call-indexes/text-index.ts, migration 018.) The counter triggers count only rows the cursor has passed, so together they
 * count each call once (migration 016's comment says how PostgreSQL keeps writers out of a batch).
 */
export class SqlCallIndexStore implements CallIndexStore {
  readonly #sql: SqlTag;
  #done = false;
  #position: { at: number; progress: CallIndexProgress } | null = null;

  /** `buildIndexes`: the adapter's build of the indexes its migration deferred (none by default). */
  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: BackfillDialect,
    private readonly batchCalls: number,
    private readonly buildIndexes: () => Promise<void> = async () => undefined,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  buildDeferredIndexes(): Promise<void> {
    return this.buildIndexes();
  }

  async ready(projectId: string): Promise<boolean> {
    if (this.#done) return true;
    const now = Date.now();
    if (this.#position === null || now - this.#position.at > POSITION_TTL_MS)
      this.#position = { at: now, progress: await this.progress() };
    const { done, cursor_project, bound_project } = this.#position.progress;
    if (done) this.#done = true;
    // passed by the backfill, or after the last key the migration saw (only new calls there)
    if (done || (cursor_project !== null && before(projectId, cursor_project))) return true;
    return bound_project !== null && before(bound_project, projectId);
  }

  async progress(): Promise<CallIndexProgress> {
    const [row] = await this.tx.read<BuildRow>(
      this.#sql`SELECT ${BUILD_COLUMNS} FROM call_index_builds WHERE name = 'calls'`,
    );
    return toProgress(row);
  }

  async backfillBatch(batchCalls = this.batchCalls): Promise<CallIndexProgress> {
    const sql = this.#sql;
    const { lock } = this.dialect;
    const progress = await this.tx.transaction(function* () {
      if (lock !== null) yield* all(sql`${raw(lock)}`);
      const [state] = yield* all<BuildRow>(sql`SELECT ${BUILD_COLUMNS} FROM call_index_builds WHERE name = 'calls'`);
      if (state === undefined) return toProgress(state);
      const from = state.cursor_project === null ? null : [state.cursor_project, state.cursor_id];
      const after = from === null ? frag`` : frag`(project_id, id) > (${from[0]}, ${from[1]}) AND `;
      const bound = frag`(project_id, id) <= (${state.bound_project}, ${state.bound_id})`;
      const keys = yield* all<{ project_id: string; id: string }>(
        sql`SELECT project_id, id FROM calls WHERE ${after}${bound} ORDER BY project_id, id LIMIT ${batchCalls}`,
      );
      const last = keys.at(-1);
      if (last === undefined) {
        yield* runAll([sql`DELETE FROM call_index_builds WHERE name = 'calls'`]);
        return { ...toProgress(state), done: true };
      }
      // the batch's key range (the values are bound by each statement)
      const range = frag`${after}(project_id, id) <= (${last.project_id}, ${last.id})`;
      const visible = raw('started_at IS NOT NULL AND deleted_at IS NULL');
      yield* runAll([
        sql`INSERT INTO call_counts (project_id, bucket, calls)
          SELECT project_id, started_at / ${raw(String(HOUR))}, COUNT(*) FROM calls WHERE ${range} AND ${visible}
          GROUP BY 1, 2
          ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls`,
        sql`UPDATE calls SET latency_ms = ${raw(latencyMsSql('ended_at', 'started_at'))}
          WHERE ${range} AND latency_ms IS NULL AND ended_at IS NOT NULL AND started_at IS NOT NULL`,
        sql`UPDATE call_index_builds SET cursor_project = ${last.project_id}, cursor_id = ${last.id},
          calls_done = calls_done + ${keys.length} WHERE name = 'calls'`,
      ]);
      return {
        ...toProgress(state),
        calls_done: Number(state.calls_done) + keys.length,
        cursor_project: last.project_id,
      };
    });
    if (progress.done) this.#done = true;
    this.#position = null;
    return progress;
  }
}

/**
 * A dialect's statement written around a WHERE condition (`statement(where)`), with the fragment
 * `where` (and its bound values) spliced at each place the statement puts it.
 */
export function statementWhere(sql: SqlTag, statement: (where: string) => string, where: Fragment): CompiledSql {
  const marker = '\u0000WHERE\u0000';
  const parts = statement(marker).split(marker);
  // a template of the dialect's SQL with the fragment at each marker
  const strings = Object.assign([...parts], { raw: [...parts] }) as unknown as TemplateStringsArray;
  return sql(strings, ...parts.slice(1).map(() => where));
}

/**
 * What the project import runs after inserting a batch of calls (project-transfer.ts `afterInsert`):
 * a dump made before migration 016 has no `latency_ms`, so it is filled from the imported rows as the
 * backfill does (a no-op for a newer dump's rows). The project's mark of the call indexer (migration
 * 017) is removed: the imported calls have no `change_seq`, and equalities and `$contains` scan until
 * the indexer has written their `call_values` and texts (call-indexes/text-index.ts).
 */
export function indexImportedCalls(dialect: BackfillDialect, projectId: string, ids: unknown[]): CompiledSql[] {
  const sql = sqlTag(dialect.d);
  const these = frag`project_id = ${projectId} AND id IN ${ids}`;
  return [
    sql`UPDATE calls SET latency_ms = ${raw(latencyMsSql('ended_at', 'started_at'))}
      WHERE ${these} AND latency_ms IS NULL AND ended_at IS NOT NULL AND started_at IS NOT NULL`,
    // imported calls have no change_seq: the indexes cover the project again once the indexer has
    // been through them (call-indexes/text-index.ts)
    sql`DELETE FROM call_text_marks WHERE project_id = ${projectId}`,
    // imported calls and prices: the indexer prices every call of the project again (call-indexes/cost-entries.ts)
    sql`DELETE FROM call_cost_gens WHERE project_id = ${projectId}`,
    sql`DELETE FROM call_entry_fills WHERE project_id = ${projectId}`,
  ];
}
