import type pg from 'pg';
import { RollupDelta, type RollupSource } from '../../domain/call-rollup.js';
import {
  LATENCY_COLUMNS,
  PG_LATENCY_UPSERT_SQL,
  PG_STATS_UPSERT_SQL,
  STATS_COLUMNS,
  type RollupSourceRow,
} from '../sql/call-rollup-sql.js';

/**
 * The call roll-up's share of the PostgreSQL call writes (docs/call-rollups.md), in the transaction
 * of the write. Rows are made to exist and locked first, in the writer's lock order, so the columns
 * read are the ones the write then changes even when another node writes the same call at once;
 * the write returns the new columns; the merged delta is added in key order.
 */

/** Key order of the batch: the writer's one lock order (call-merge.ts). */
export type CallKey = { project_id: string; id: string };

const keysPayload = (keys: readonly CallKey[]): string =>
  JSON.stringify(keys.map((k) => ({ p: k.project_id, i: k.id })));

const ENSURE_SQL = `INSERT INTO calls (project_id, id)
  SELECT e->>'p', e->>'i' FROM jsonb_array_elements($1::jsonb) AS e
  ON CONFLICT (project_id, id) DO NOTHING`;

/** Source columns, `summary` as JSON text (RollupDelta parses it as SQLite's text). */
export const PG_SOURCE_COLUMNS = `started_at, deleted_at, op_name, ended_at, exception, summary::text AS summary, rolled_up`;

const LOCK_SQL = `SELECT c.project_id, c.id, ${PG_SOURCE_COLUMNS.replace(/(^|, )(\w+)/g, '$1c.$2')}
  FROM calls c JOIN (SELECT e->>'p' AS p, e->>'i' AS i FROM jsonb_array_elements($1::jsonb) AS e) k
    ON c.project_id = k.p AND c.id = k.i
  ORDER BY c.project_id, c.id FOR UPDATE OF c`;

type KeyedSource = RollupSourceRow & CallKey;

/**
 * Makes every call of the batch exist (an empty row adds nothing) and locks it, returning what each
 * contributed before the write: a concurrent first write of the same call waits here for the other
 * transaction, so the columns read are the committed ones.
 */
export async function lockAndReadSources(client: pg.PoolClient, keys: readonly CallKey[]): Promise<KeyedSource[]> {
  const payload = keysPayload(keys);
  await client.query(ENSURE_SQL, [payload]);
  const { rows } = await client.query<KeyedSource>(LOCK_SQL, [payload]);
  return rows;
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

/** Adds a merged delta: one statement per table, rows in key order. */
export async function applyRollupDelta(client: pg.PoolClient, delta: RollupDelta): Promise<void> {
  const stats = delta.statsRows();
  if (stats.length > 0) {
    const payload = stats.map((r) => Object.fromEntries(STATS_COLUMNS.map((c) => [c, r[c]])));
    await client.query(PG_STATS_UPSERT_SQL, [JSON.stringify(payload)]);
  }
  const latency = delta.latencyRows();
  if (latency.length > 0) {
    const payload = latency.map((r) => Object.fromEntries(LATENCY_COLUMNS.map((c) => [c, r[c]])));
    await client.query(PG_LATENCY_UPSERT_SQL, [JSON.stringify(payload)]);
  }
}
