import type pg from 'pg';
import type { RollupDelta, RollupKey, RollupStatsRow, RollupSums } from '../../domain/call-rollup.js';
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
 * A delta's rows for pendingInsertSql: one row per project the delta changes, each holding the
 * project's sums rows and histogram rows as JSON arrays of arrays (STATS_COLUMNS / LATENCY_COLUMNS
 * order). One project's row binds as three text parameters; several (or none) as three text arrays.
 */
export interface PendingRows {
  /** Rows to append: the projects the delta changes. */
  count: number;
  values: [string, string, string] | [string[], string[], string[]];
}

/**
 * The pending rows of a delta, their JSON written directly (the text `JSON.stringify` gives for
 * the rows' column arrays, without building those arrays: this runs for every batch written). Rows
 * whose changes cancelled out are left out; rows are in any order, as they are only appended and
 * the fold sums and orders them.
 */
export function pendingRows(delta: RollupDelta): PendingRows {
  const byProject = new Map<string, ProjectRows>();
  for (const { sums, bins } of delta.rows()) {
    let head: string | null = null;
    let rows: ProjectRows | null = null;
    if (sumsChange(sums)) {
      head = keyHead(sums);
      rows = projectRows(byProject, sums.project_id);
      rows.stats.push(head + sumsTail(sums));
    }
    for (const b of bins.values()) {
      if (b.calls === 0) continue;
      head ??= keyHead(sums);
      rows ??= projectRows(byProject, sums.project_id);
      rows.hist.push(`${head}${b.bin},${b.calls}]`);
    }
  }
  if (byProject.size === 1) {
    const [id, rows] = byProject.entries().next().value as [string, ProjectRows];
    return { count: 1, values: [id, `[${rows.stats.join(',')}]`, `[${rows.hist.join(',')}]`] };
  }
  const ids = [...byProject.keys()];
  const stats: string[] = [];
  const hist: string[] = [];
  for (const rows of byProject.values()) {
    stats.push(`[${rows.stats.join(',')}]`);
    hist.push(`[${rows.hist.join(',')}]`);
  }
  return { count: ids.length, values: [ids, stats, hist] };
}

/** One project's JSON rows, each an array's text. */
interface ProjectRows {
  stats: string[];
  hist: string[];
}

function projectRows(byProject: Map<string, ProjectRows>, projectId: string): ProjectRows {
  let rows = byProject.get(projectId);
  if (!rows) byProject.set(projectId, (rows = { stats: [], hist: [] }));
  return rows;
}

/** Whether a sums row changes something (SUM_COLUMNS not all zero). */
function sumsChange(s: RollupStatsRow): boolean {
  return (
    s.calls !== 0 ||
    s.errors !== 0 ||
    s.latency_count !== 0 ||
    s.latency_sum !== 0 ||
    s.latency_nonzero !== 0 ||
    s.usage_rows !== 0 ||
    s.input_tokens !== 0 ||
    s.output_tokens !== 0 ||
    s.total_tokens !== 0 ||
    s.cache_read_tokens !== 0 ||
    s.cache_creation_tokens !== 0
  );
}

/** The key columns of a row as the start of its JSON array, up to the comma after `model`. */
function keyHead(s: RollupKey): string {
  return `[${JSON.stringify(s.project_id)},${s.hour},${JSON.stringify(s.op_name)},${JSON.stringify(s.status)},${s.scope},${JSON.stringify(s.model)},`;
}

/** The sums of a row in SUM_COLUMNS order, closing its JSON array (test/unit/rollup-pending.test.ts checks the order). */
function sumsTail(s: RollupSums): string {
  return `${s.calls},${s.errors},${s.latency_count},${s.latency_sum},${s.latency_nonzero},${s.usage_rows},${json(s.input_tokens)},${json(s.output_tokens)},${json(s.total_tokens)},${json(s.cache_read_tokens)},${json(s.cache_creation_tokens)}]`;
}

/** A number as JSON.stringify writes it: a sum of tokens that overflowed is `null`. */
const json = (n: number): string => (Number.isFinite(n) ? `${n}` : 'null');

/**
 * Appends the rows of pendingRows given as parameters `$a`, `$a+1`, `$a+2`: three texts when the
 * delta has `count` 1, else three text arrays. The two texts differ, so a named statement that
 * holds one carries pendingForm in its name.
 */
export const pendingInsertSql = (a: number, count: number): string =>
  count === 1
    ? `INSERT INTO call_rollup_pending (project_id, stats, hist) VALUES ($${a}::text, $${a + 1}::text, $${a + 2}::text)`
    : `INSERT INTO call_rollup_pending (project_id, stats, hist)
    SELECT * FROM unnest($${a}::text[], $${a + 1}::text[], $${a + 2}::text[])`;

/** The suffix of a named statement holding pendingInsertSql for `count` rows. */
export const pendingForm = (count: number): string => (count === 1 ? '_one' : '');

/** Appends a merged delta inside a write's transaction; the number of rows appended (one per project). */
export async function appendRollupDelta(client: pg.PoolClient, delta: RollupDelta): Promise<number> {
  const { count, values } = pendingRows(delta);
  if (count === 0) return 0;
  await client.query({
    name: `heddle_rollup_append${pendingForm(count)}`,
    text: pendingInsertSql(1, count),
    values: values as unknown[],
  });
  return count;
}

const keys = ROLLUP_KEY_COLUMNS.join(', ');
const sums = SUM_COLUMNS.map((c) => `SUM(${c})`).join(', ');

/** The key in the order JavaScript sorts the roll-up's keys (call-rollup.ts): text by code point. */
const ordered = ROLLUP_KEY_COLUMNS.map((c) => (c === 'hour' || c === 'scope' ? c : `${c} COLLATE "C"`)).join(', ');

/**
 * Folds up to `$1` pending rows of project `$2` into the roll-up in one statement (of one project,
 * so one shard under Citus, which refuses a lock across shards): deleted, their changes summed by key and upserted, so a reader's
 * statement sees each change either pending or folded, never both or neither. Rows another fold
 * holds are skipped (`SKIP LOCKED`), so folds on several nodes share the work. The sums are upserted
 * before the histogram, each in key order (unread data-modifying CTEs run after the main query, the
 * last defined first), as the roll-up's only other writers, the retention and backfill
 * transactions (call-rollup-sql.ts rollupUpserts), take them. Groups whose changes cancel out are
 * left alone.
 */
export const FOLD_SQL = `WITH taken AS (
  DELETE FROM call_rollup_pending d USING (
    SELECT project_id, seq FROM call_rollup_pending WHERE project_id = $2::text
    ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED) t
  WHERE d.project_id = $2::text AND d.project_id = t.project_id AND d.seq = t.seq
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

/** Folds up to `limit` pending rows of `projectId`; how many it folded. */
export async function foldPending(pool: pg.Pool, limit: number, projectId: string): Promise<number> {
  const { rows } = await pool.query<{ folded: number }>({
    name: 'heddle_rollup_fold',
    text: FOLD_SQL,
    values: [limit, projectId],
  });
  return rows[0]?.folded ?? 0;
}

/** The projects with pending rows, in key order (a read without a lock: on every shard under Citus). */
export async function pendingProjects(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ project_id: string }>(
    'SELECT DISTINCT project_id FROM call_rollup_pending ORDER BY project_id',
  );
  return rows.map((r) => r.project_id);
}

/** Folds every pending row of one project. */
async function foldAllOf(pool: pg.Pool, batchRows: number, projectId: string): Promise<void> {
  while ((await foldPending(pool, batchRows, projectId)) >= batchRows);
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
  /** Told of a background fold that failed (its rows stay pending and are folded at a later turn). */
  onError: (error: unknown) => void;
}

const DEFAULTS: RollupFolderOptions = {
  everyRows: 64,
  intervalMs: 1_000,
  batchRows: 256,
  onError: (error) =>
    process.stderr.write(
      `${JSON.stringify({ level: 50, time: Date.now(), msg: 'call roll-up fold failed', err: String(error) })}\n`,
    ),
};

/**
 * Runs the folds of one node: once `everyRows` pending rows were appended here, and every
 * `intervalMs` while started. One fold at a time per node, project by project (each statement on one
 * project: one shard under Citus). A failed fold (the database away) leaves its rows pending, where
 * readers count them, and is tried again at the next turn; it is counted (`failures`) and told to
 * `onError`, never swallowed.
 */
export class RollupFolder {
  readonly #pool: pg.Pool;
  readonly #options: RollupFolderOptions;
  #appended = 0;
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #failures = 0;

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

  /** Background folds that failed since start (each also told to `onError`). */
  get failures(): number {
    return this.#failures;
  }

  /** Folds every pending row of one project (before its export), waiting for a fold in progress. */
  async foldProject(projectId: string): Promise<void> {
    await this.#running;
    await foldAllOf(this.#pool, this.#options.batchRows, projectId);
  }

  /** Folds every pending row now, project by project, waiting for a fold in progress; errors are thrown. */
  async foldAll(): Promise<void> {
    await this.#running;
    for (const project of await pendingProjects(this.#pool))
      await foldAllOf(this.#pool, this.#options.batchRows, project);
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
      for (const project of await pendingProjects(this.#pool)) {
        if (this.#closed) return;
        await foldAllOf(this.#pool, this.#options.batchRows, project);
      }
    } catch (error) {
      // left pending (readers count it); the next turn tries again
      this.#failures += 1;
      this.#options.onError(error);
    }
  }
}
