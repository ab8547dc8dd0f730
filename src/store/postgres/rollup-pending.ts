import type pg from 'pg';
import type { RollupDelta } from '../../domain/call-rollup.js';
import {
  LATENCY_COLUMNS,
  PG_ADD_SUMS,
  pgLatencyElements,
  pgStatsElements,
  ROLLUP_KEY_COLUMNS,
  STATS_COLUMNS,
} from '../sql/call-rollup-sql.js';
import { SUM_COLUMNS } from '../../domain/call-rollup.js';

/**
 * The roll-up changes of PostgreSQL's call writes, appended to `call_rollup_pending` (migration 023,
 * docs/call-rollups.md "PostgreSQL: pending changes") instead of upserted into the roll-up rows: a
 * write adds one row per project it touches, so no writer locks a roll-up row, and a background
 * fold adds many writes' changes to `call_rollups` / `call_rollup_latency` at once, where keys
 * repeat from write to write (the same hour, op, status and bin).
 */

/**
 * A delta's rows grouped by project, as the three array parameters of PENDING_INSERT: project ids,
 * then each project's sums rows and histogram rows as JSON arrays of arrays (STATS_COLUMNS /
 * LATENCY_COLUMNS order). Empty arrays when the delta changes nothing.
 */
export function pendingParams(delta: RollupDelta): [string[], string[], string[]] {
  const byProject = new Map<string, { stats: unknown[][]; hist: unknown[][] }>();
  const of = (project: string) => {
    let p = byProject.get(project);
    if (!p) byProject.set(project, (p = { stats: [], hist: [] }));
    return p;
  };
  // in any order: the rows are only appended, and the fold sums and orders them
  for (const r of delta.statsRows(false)) of(r.project_id).stats.push(STATS_COLUMNS.map((c) => r[c]));
  for (const r of delta.latencyRows(false)) of(r.project_id).hist.push(LATENCY_COLUMNS.map((c) => r[c]));
  const projects = [...byProject.keys()];
  return [
    projects,
    projects.map((p) => JSON.stringify(byProject.get(p)!.stats)),
    projects.map((p) => JSON.stringify(byProject.get(p)!.hist)),
  ];
}

/** Appends the rows of pendingParams given as parameters `$a`, `$a+1`, `$a+2`. */
export const pendingInsertSql = (a: number): string =>
  `INSERT INTO call_rollup_pending (project_id, stats, hist)
    SELECT * FROM unnest($${a}::text[], $${a + 1}::text[], $${a + 2}::text[])`;

/** Appends a merged delta inside a write's transaction; the number of rows appended (one per project). */
export async function appendRollupDelta(client: pg.PoolClient, delta: RollupDelta): Promise<number> {
  const params = pendingParams(delta);
  if (params[0].length === 0) return 0;
  await client.query({ name: 'heddle_rollup_append', text: pendingInsertSql(1), values: params });
  return params[0].length;
}

const keys = ROLLUP_KEY_COLUMNS.join(', ');
const sums = SUM_COLUMNS.map((c) => `SUM(${c})`).join(', ');

/** The key in the order JavaScript sorts the roll-up's keys (call-rollup.ts): text by code point. */
const ordered = ROLLUP_KEY_COLUMNS.map((c) => (c === 'hour' || c === 'scope' ? c : `${c} COLLATE "C"`)).join(', ');

/**
 * Folds up to `$1` pending rows (of project `$2`, or of any project when `$2` is null) into the
 * roll-up in one statement: deleted, their changes summed by key and upserted, so a reader's
 * statement sees each change either pending or folded, never both or neither. Rows another fold
 * holds are skipped (`SKIP LOCKED`), so folds on several nodes share the work. The sums are upserted
 * before the histogram, each in key order (unread data-modifying CTEs run after the main query, the
 * last defined first), as the roll-up's only other writers, the retention and backfill
 * transactions (call-rollup-sql.ts rollupUpserts), take them. Groups whose changes cancel out are
 * left alone.
 */
export const FOLD_SQL = `WITH taken AS (
  DELETE FROM call_rollup_pending d USING (
    SELECT project_id, seq FROM call_rollup_pending WHERE $2::text IS NULL OR project_id = $2
    ORDER BY project_id, seq LIMIT $1 FOR UPDATE SKIP LOCKED) t
  WHERE d.project_id = t.project_id AND d.seq = t.seq
  RETURNING d.stats, d.hist),
hist AS (
  INSERT INTO call_rollup_latency (${LATENCY_COLUMNS.join(', ')})
  SELECT ${keys}, bin, SUM(calls) FROM (${pgLatencyElements('taken p', 'p.hist')}) r
  GROUP BY ${keys}, bin HAVING SUM(calls) <> 0
  ORDER BY ${ordered}, bin
  ON CONFLICT (${keys}, bin) DO UPDATE SET calls = call_rollup_latency.calls + excluded.calls),
sums AS (
  INSERT INTO call_rollups (${STATS_COLUMNS.join(', ')})
  SELECT ${keys}, ${sums} FROM (${pgStatsElements('taken p', 'p.stats')}) r
  GROUP BY ${keys} HAVING ${SUM_COLUMNS.map((c) => `SUM(${c}) <> 0`).join(' OR ')}
  ORDER BY ${ordered}
  ON CONFLICT (${keys}) DO UPDATE SET ${PG_ADD_SUMS})
SELECT count(*)::integer AS folded FROM taken`;

/** Folds up to `limit` pending rows (of `projectId` only, when given); how many it folded. */
export async function foldPending(pool: pg.Pool, limit: number, projectId: string | null): Promise<number> {
  const { rows } = await pool.query<{ folded: number }>({
    name: 'heddle_rollup_fold',
    text: FOLD_SQL,
    values: [limit, projectId],
  });
  return rows[0]?.folded ?? 0;
}

/** The pending rows of the readers (call-rollup-store.ts): each table's rows not folded yet, from `p`. */
export const PENDING_ROWS = {
  stats: pgStatsElements('call_rollup_pending p', 'p.stats'),
  latency: pgLatencyElements('call_rollup_pending p', 'p.hist'),
};

export interface RollupFolderOptions {
  /** Pending rows this node appends before it folds at once. */
  everyRows: number;
  /** How often it folds anyway (rows other nodes or transactions appended, rows left by a crash). */
  intervalMs: number;
  /** Rows per fold statement. */
  batchRows: number;
}

const DEFAULTS: RollupFolderOptions = { everyRows: 64, intervalMs: 1_000, batchRows: 256 };

/**
 * Runs the folds of one node: once `everyRows` pending rows were appended here, and every
 * `intervalMs` while started. One fold at a time per node. A failed fold (the database away) leaves
 * its rows pending, where readers count them, and is tried again at the next turn.
 */
export class RollupFolder {
  readonly #pool: pg.Pool;
  readonly #options: RollupFolderOptions;
  #appended = 0;
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(pool: pg.Pool, options: Partial<RollupFolderOptions> = {}) {
    this.#pool = pool;
    this.#options = { ...DEFAULTS, ...options };
  }

  /** Folds every interval from now on (the server's store, once migrated). */
  start(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setInterval(() => this.#kick(), this.#options.intervalMs);
    this.#timer.unref();
  }

  /** Counts rows this node appended; folds once enough have been. */
  noteAppended(rows: number): void {
    this.#appended += rows;
    if (this.#appended >= this.#options.everyRows) this.#kick();
  }

  /** Folds every pending row of one project (before its export), waiting for a fold in progress. */
  async foldProject(projectId: string): Promise<void> {
    await this.#running;
    while ((await foldPending(this.#pool, this.#options.batchRows, projectId)) >= this.#options.batchRows);
  }

  /** Folds every pending row now, waiting for a fold in progress; errors are thrown. */
  async foldAll(): Promise<void> {
    await this.#running;
    while ((await foldPending(this.#pool, this.#options.batchRows, null)) >= this.#options.batchRows);
  }

  /** Waits for the fold in progress and runs no more. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #kick(): void {
    if (this.#running !== null || this.#closed) return;
    this.#appended = 0;
    this.#running = this.#foldAll().finally(() => {
      this.#running = null;
    });
  }

  async #foldAll(): Promise<void> {
    try {
      while (
        !this.#closed &&
        (await foldPending(this.#pool, this.#options.batchRows, null)) >= this.#options.batchRows
      );
    } catch {
      // left pending (readers count it); the next turn tries again
    }
  }
}
