import type pg from 'pg';
import { RollupDelta, type RollupSource } from '../../domain/call-rollup.js';
import type { MergedCall } from './call-merge.js';
import type { RollupSourceRow } from '../sql/call-rollup-sql.js';
import { appendRollupDelta, pendingForm, pendingInsertSql, pendingRows } from './rollup-pending.js';
import { applyCountChanges, countChanges, COUNT_BUCKET_US } from './call-counts.js';

/**
 * The call roll-up's share of the PostgreSQL call writes (docs/call-rollups.md), in the transaction
 * of the write. Existing rows are locked first, in the writer's lock order, so the columns read are
 * the ones the write then changes; a row another transaction inserts in between is caught by the
 * write's `inserted` flag and the transaction retried; the write returns the new columns; the merged
 * delta is appended to `call_rollup_pending` (rollup-pending.ts), which a fold adds to the roll-up
 * rows later. The call writer writes a batch of new calls in one statement (newCallsSql, the delta
 * computed from the batch), other batches in two (rolledUpUpsert: the locking read folded into the
 * upsert, then the append); other writes (tombstones) take three (rolledUpWrite).
 */

/** Key order of the batch: the writer's one lock order (call-merge.ts). */
export type CallKey = { project_id: string; id: string };

/** Source columns, `summary` as JSON text (RollupDelta parses it as SQLite's text). */
const PG_SOURCE_COLUMNS = `started_at, deleted_at, op_name, ended_at, exception, summary::text AS summary, rolled_up`;

/**
 * One project's calls (under Citus a locking read must stay on one shard, and a project is one),
 * `$2` sorted: each id is one primary-key probe, locked in the array's order. The locking subquery
 * is never flattened into a join, so the plan cannot depend on the table's statistics: written as
 * `c.id = ANY($2)`, a project new since the last ANALYZE looked small to the planner, which then
 * scanned all the project's calls for every batch (docs/query-performance.md, "Where a PostgreSQL
 * batch's time goes").
 */
const LOCK_SQL = lockingRead('unnest($2::text[]) AS k(id)', '$1::text');

/** The locking read of the stored calls of `keys` (rows `k` with an `id`) in `project`, as LOCK_SQL's. */
function lockingRead(keys: string, project: string): string {
  return `SELECT c.* FROM ${keys} CROSS JOIN LATERAL (
    SELECT c.project_id, c.id, ${PG_SOURCE_COLUMNS.replace(/(^|, )(\w+)/g, '$1c.$2')}
    FROM calls c WHERE c.project_id = ${project} AND c.id = k.id FOR UPDATE) c`;
}

type KeyedSource = RollupSourceRow & CallKey;

/** Locks the batch's existing calls in key order and returns what each contributed before the write. */
export async function lockAndReadSources(client: pg.PoolClient, keys: readonly CallKey[]): Promise<KeyedSource[]> {
  const byProject = new Map<string, string[]>();
  for (const k of keys) {
    const ids = byProject.get(k.project_id);
    if (ids) ids.push(k.id);
    else byProject.set(k.project_id, [k.id]);
  }
  const out: KeyedSource[] = [];
  // projects in key order, as the batch is sorted (call-merge.ts): the writers' one lock order
  for (const project of [...byProject.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { rows } = await client.query<KeyedSource>({
      name: 'heddle_rollup_lock',
      text: LOCK_SQL,
      values: [project, byProject.get(project)!.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))],
    });
    out.push(...rows);
  }
  return out;
}

/**
 * A call the write found existing (`inserted` false) that the lock did not see was inserted by a
 * concurrent transaction in between: its old columns are unknown, so the transaction is retried
 * (transaction.ts retries a serialization failure), and the next lock sees the row.
 */
export function checkNoneAppeared(
  locked: readonly CallKey[],
  written: readonly (CallKey & { inserted: boolean })[],
): void {
  const seen = new Set(locked.map((k) => `${k.project_id}\u0000${k.id}`));
  for (const row of written)
    if (!row.inserted && !seen.has(`${row.project_id}\u0000${row.id}`))
      throw Object.assign(new Error('a call was written concurrently; retrying for the call roll-up'), {
        code: '40001',
      });
}

/** Subtracts the counted rows' old contributions. */
export function subtractSources(delta: RollupDelta, before: readonly KeyedSource[]): void {
  for (const row of before) if (Number(row.rolled_up) === 1) delta.add(row.project_id, numeric(row), -1);
}

/** Adds the new contributions (rows returned by the write, which set `rolled_up`). */
export function addSources(delta: RollupDelta, after: readonly (RollupSource & CallKey)[]): void {
  for (const row of after) delta.add(row.project_id, numeric(row), 1);
}

/** bigint columns arrive as numbers through PG_TYPES, but a plain client returns strings: accept both. */
function numeric<R extends RollupSource>(row: R): R {
  const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return { ...row, started_at: n(row.started_at), ended_at: n(row.ended_at), deleted_at: n(row.deleted_at) };
}

/**
 * One call write with the roll-up kept in step, on a client inside a transaction: locks and reads
 * the calls of `keys`, runs `write` (which returns the rows it wrote with their source columns and
 * `inserted`), and moves the roll-up by the difference.
 */
export async function rolledUpWrite(
  client: pg.PoolClient,
  keys: readonly CallKey[],
  write: () => Promise<readonly (RollupSource & CallKey & { inserted: boolean })[]>,
): Promise<number> {
  const delta = new RollupDelta();
  const before = await lockAndReadSources(client, keys);
  subtractSources(delta, before);
  const written = await write();
  checkNoneAppeared(before, written);
  addSources(delta, written);
  await applyCountChanges(client, countChanges(before, written));
  return appendRollupDelta(client, delta);
}

/** The columns both sides of lockedUpsertSql's statement return, `old` telling them apart. */
const WRITTEN_COLUMNS = ['project_id', 'id', 'started_at', 'deleted_at', 'op_name', 'ended_at', 'exception', 'summary'];

/**
 * A call upsert (`write`: `INSERT … RETURNING` the roll-up's source columns and `inserted`, using
 * `$1`…`$n`) of one project's calls with the locking read of the batch's existing calls folded into
 * the same statement: `$n+1` is the project, `$n+2` the batch's ids in key order (one project, so
 * the locking read runs on one shard under Citus, which refuses a lock across shards). `locked` locks and reads each stored row (one
 * primary-key probe per key, in key order) and is read to its end before the upsert begins (the
 * one-time filter of the first branch); it is a read of the statement's snapshot where the row
 * has not changed since, and of the newest row where it has (a locking read in READ COMMITTED),
 * so `locked` holds each counted row's columns as the upsert then finds them. A row inserted by
 * another transaction after the snapshot is not in `locked`; the upsert then reports it not
 * inserted and checkNoneAppeared retries the transaction, as for two statements.
 */
export function lockedUpsertSql(write: string, params: number): string {
  const key = `${params}\u0000${write}`;
  let text = lockedSql.get(key);
  if (text === undefined) lockedSql.set(key, (text = buildLockedUpsertSql(write, params)));
  return text;
}

const lockedSql = new Map<string, string>();

function buildLockedUpsertSql(write: string, params: number): string {
  const keys = `unnest($${params + 2}::text[]) AS k(id)`;
  const locked = `locked AS MATERIALIZED (${lockingRead(keys, `$${params + 1}::text`)})`;
  const select = `SELECT false AS old, ${WRITTEN_COLUMNS.map((c) => `w.${c}`).join(', ')}, w.inserted, 0 AS rolled_up
    FROM written w WHERE (SELECT count(*) FROM locked) >= 0
  UNION ALL SELECT true, ${WRITTEN_COLUMNS.map((c) => `l.${c}`).join(', ')}, false, l.rolled_up FROM locked l`;
  return `WITH ${locked},\n  written AS (${insertOf(write, 'lockedUpsertSql')})\n${select}`;
}

type LockedUpsertRow = RollupSource & CallKey & { old: boolean; inserted: boolean; rolled_up: number };

/**
 * The call writer's batch upsert of one project's calls (`query`, its text as lockedUpsertSql takes
 * it) with the roll-up kept in step in two statements: the upsert with the locking read folded in,
 * then the delta; and a third when the write changed the hour counters (call-counts.ts). `keys` are
 * the batch's rows in key order (call-merge.ts), all of `project`.
 */
export async function rolledUpUpsert(
  client: pg.PoolClient,
  project: string,
  keys: readonly CallKey[],
  query: { name: string; text: string; values: unknown[] },
): Promise<number> {
  const { rows } = await client.query<LockedUpsertRow>({
    name: `${query.name}_locked`,
    text: lockedUpsertSql(query.text, query.values.length),
    values: [...query.values, project, keys.map((k) => k.id)],
  });
  const before: KeyedSource[] = [];
  const written: LockedUpsertRow[] = [];
  for (const row of rows) (row.old ? before : written).push(row as LockedUpsertRow & KeyedSource);
  checkNoneAppeared(before, written);
  const delta = new RollupDelta();
  subtractSources(delta, before);
  addSources(delta, written);
  await applyCountChanges(client, countChanges(before, written));
  return appendRollupDelta(client, delta);
}

/**
 * A batch of new calls in one statement, without a transaction of its own (docs/query-performance.md,
 * "Where a PostgreSQL batch's time goes"): `write` (as lockedUpsertSql takes it, `$1`…`$n`) and the
 * batch's roll-up changes appended to `call_rollup_pending` (`$n+1`…`$n+3`, rollup-pending.ts), the
 * delta of the batch's rows as if each were inserted (newCallsParams). Every sub-statement commits or
 * none: when a row of the batch was stored already (its `inserted` flag false), the final SELECT
 * fails the whole statement with CALLS_EXIST, and the caller writes the batch in a transaction
 * instead (rolledUpUpsert).
 *
 * The batch's hour counters (`call_counts`, `$n+4`…`$n+6`: project ids, buckets, calls) are added
 * to after the calls are written (the main query reads `counters`, which reads `written`): the
 * writers' one lock order, calls then counters (call-counts.ts). While the index backfill of
 * migration 016 is pending (a row in `call_index_builds`), which calls count here depends on its
 * cursor, read under its lock: the statement then fails as a whole as for a stored call, and the
 * batch goes through the transaction path, which counts through heddle_count_calls (migration 031).
 * No writer locks a roll-up row: the fold does (rollup-pending.ts).
 */
export function newCallsSql(write: string, params: number, pending: number): string {
  const form = pendingForm(pending);
  const key = `new${form}\u0000${params}\u0000${write}`;
  let text = lockedSql.get(key);
  if (text === undefined) lockedSql.set(key, (text = buildNewCallsSql(write, params, pending)));
  return text;
}

/** The text the final SELECT of newCallsSql casts to bigint when a row was stored already. */
export const CALLS_EXIST = 'heddle: calls of the batch exist';

function buildNewCallsSql(write: string, params: number, pendingCount: number): string {
  const pending = `pending AS (${pendingInsertSql(params + 1, pendingCount)})`;
  // the batch's hour counters, added to in key order (see newCallsSql)
  const keys = `unnest($${params + 4}::text[], $${params + 5}::bigint[], $${params + 6}::bigint[]) AS k(project_id, bucket, calls)`;
  const counters = `counters AS (INSERT INTO call_counts (project_id, bucket, calls)
    SELECT k.project_id, k.bucket, k.calls FROM ${keys} WHERE (SELECT count(*) FROM written) >= 0
    ON CONFLICT (project_id, bucket) DO UPDATE SET calls = call_counts.calls + excluded.calls RETURNING 1)`;
  const check = `SELECT CASE WHEN bool_and(inserted) IS NOT FALSE AND NOT EXISTS (SELECT 1 FROM call_index_builds) THEN count(*)
    ELSE ('${CALLS_EXIST}: ' || count(*) FILTER (WHERE NOT inserted))::bigint END AS calls
    FROM written WHERE (SELECT count(*) FROM counters) >= 0`;
  return `WITH written AS (${insertOf(write, 'newCallsSql')}),\n  ${counters},\n  ${pending}\n${check}`;
}

/** The call upsert `write`, which both statements take as their `written` CTE: an `INSERT … RETURNING`. */
function insertOf(write: string, builder: string): string {
  const trimmed = write.trim();
  if (!trimmed.startsWith('INSERT ')) throw new Error(`${builder}: the write must be an INSERT … RETURNING`);
  return trimmed;
}

/** Whether `error` is newCallsSql's refusal of a batch with stored calls. */
export function isCallsExist(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '22P02' && typeof e.message === 'string' && e.message.includes(CALLS_EXIST);
}

/**
 * The parameters of newCallsSql after the write's (`values`): what a batch of calls the store does
 * not hold yet adds to the roll-up (each row as inserted; `pending` rows, rollup-pending.ts
 * pendingRows, whose number picks newCallsSql's text), then the (project, hour) counters its calls
 * count in, in key order, as `call_counts` keys them (`started_at / 3600000000`, truncated).
 */
export function newCallsParams(rows: readonly MergedCall[]): { values: unknown[]; pending: number } {
  const pending = pendingRows(rollupDelta(rows));
  return { values: [...pending.values, ...counterKeys(rows)], pending: pending.count };
}

/**
 * The (project, hour) counters the batch's starts count in, in key order, as three arrays (project
 * ids, buckets, calls). Buckets are collected per project (numbers, no key string per call); the batch
 * is in key order (call-merge.ts), so the project changes rarely from one row to the next.
 */
function counterKeys(rows: readonly MergedCall[]): [string[], number[], number[]] {
  const byProject = new Map<string, Map<number, number>>();
  let project: string | null = null;
  let buckets = new Map<number, number>();
  for (const row of rows) {
    const at = row.start?.started_at;
    if (at === undefined || at === null) continue;
    if (row.project_id !== project) {
      project = row.project_id;
      const known = byProject.get(project);
      if (known) buckets = known;
      else byProject.set(project, (buckets = new Map()));
    }
    const bucket = (at - (at % COUNT_BUCKET_US)) / COUNT_BUCKET_US;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  const ids: string[] = [];
  const hours: number[] = [];
  const calls: number[] = [];
  for (const id of [...byProject.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const counts = byProject.get(id)!;
    for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
      ids.push(id);
      hours.push(bucket);
      calls.push(counts.get(bucket)!);
    }
  }
  return [ids, hours, calls];
}

/** What a batch of new calls adds to the roll-up, each row as inserted (the usage from the parsed summaries). */
function rollupDelta(rows: readonly MergedCall[]): RollupDelta {
  const delta = new RollupDelta();
  for (const row of rows)
    delta.add(
      row.project_id,
      {
        started_at: row.start?.started_at ?? null,
        deleted_at: null,
        op_name: row.start?.op_name ?? null,
        ended_at: row.end?.ended_at ?? null,
        exception: row.end?.exception ?? null,
        summary: row.end?.summary ?? null,
        parsed_summary: row.end?.parsed_summary,
      },
      1,
    );
  return delta;
}
