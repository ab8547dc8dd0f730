import { SUM_COLUMNS, type RollupDelta, type RollupSource } from '../../domain/call-rollup.js';
import type { CompiledSql } from './core/sql-tag.js';
import { SqlParams, type SqlDialect } from './core/sql-dialect.js';

/**
 * SQL of the call roll-up (docs/call-rollups.md) shared by both adapters: the columns a write reads
 * before and after it changes a call, and the upserts that add a merged RollupDelta.
 */

/** The call columns `RollupDelta.add` reads, plus whether the row is counted. */
export const ROLLUP_SOURCE_COLUMNS = 'started_at, deleted_at, op_name, ended_at, exception, summary, rolled_up';

export interface RollupSourceRow extends RollupSource {
  rolled_up: number;
}

const KEY_COLUMNS = ['project_id', 'hour', 'op_name', 'status', 'scope', 'model'] as const;
export const STATS_COLUMNS = [...KEY_COLUMNS, ...SUM_COLUMNS] as const;
export const LATENCY_COLUMNS = [...KEY_COLUMNS, 'bin', 'calls'] as const;

const addTo = (table: string, columns: readonly string[]): string =>
  columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ');

/** Adds one row of sums (positional `?` parameters in STATS_COLUMNS order). */
export const STATS_UPSERT_SQL = `INSERT INTO call_rollups (${STATS_COLUMNS.join(', ')})
  VALUES (${STATS_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET ${addTo('call_rollups', SUM_COLUMNS)}`;

/** Adds one histogram count (positional `?` parameters in LATENCY_COLUMNS order). */
export const LATENCY_UPSERT_SQL = `INSERT INTO call_rollup_latency (${LATENCY_COLUMNS.join(', ')})
  VALUES (${LATENCY_COLUMNS.map(() => '?').join(', ')})
  ON CONFLICT (${KEY_COLUMNS.join(', ')}, bin) DO UPDATE SET calls = call_rollup_latency.calls + excluded.calls`;

const pgType = (c: string): string =>
  c === 'project_id' || c === 'op_name' || c === 'status' || c === 'model'
    ? 'text'
    : c.endsWith('_tokens')
      ? 'double precision'
      : 'bigint';

/** The columns of one element `e` of a JSON array of rows (arrays in `columns` order), each cast and named. */
const elementColumns = (columns: readonly string[], type: (c: string) => string): string =>
  columns.map((c, i) => `(e->>${i})::${type(c)} AS ${c}`).join(', ');

const latencyType = (c: string): string => (c === 'bin' ? 'integer' : pgType(c));

/**
 * PostgreSQL: the rows of `from` (e.g. `call_rollup_pending p`) spread into the elements of their
 * JSON column of sums rows (`json`, e.g. `p.stats`), as call_rollups columns.
 */
export const pgStatsElements = (from: string, json: string): string =>
  `SELECT ${elementColumns(STATS_COLUMNS, pgType)} FROM ${from} CROSS JOIN LATERAL jsonb_array_elements(${json}::jsonb) AS e`;

/** PostgreSQL: the same for histogram rows, as call_rollup_latency columns. */
export const pgLatencyElements = (from: string, json: string): string =>
  `SELECT ${elementColumns(LATENCY_COLUMNS, latencyType)} FROM ${from} CROSS JOIN LATERAL jsonb_array_elements(${json}::jsonb) AS e`;

/** An upsert's DO UPDATE of call_rollups: each sum added to the row already there. */
export const PG_ADD_SUMS = addTo('call_rollups', SUM_COLUMNS);
export const ROLLUP_KEY_COLUMNS: readonly string[] = KEY_COLUMNS;

/** A row read through a store's own reader: bigints may be strings, JSON may be parsed (PostgreSQL). */
export function toRollupSource(row: Record<string, unknown>): RollupSourceRow {
  const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const summary = row.summary;
  return {
    started_at: n(row.started_at),
    deleted_at: n(row.deleted_at),
    op_name: (row.op_name as string | null) ?? null,
    ended_at: n(row.ended_at),
    exception: (row.exception as string | null) ?? null,
    summary:
      summary === null || summary === undefined
        ? null
        : typeof summary === 'string'
          ? summary
          : JSON.stringify(summary),
    rolled_up: Number(row.rolled_up ?? 0),
  };
}

/** The upserts of a merged delta as statements of the shared transaction runner (core/sql-tx.ts). */
export function rollupUpserts(delta: RollupDelta, d: SqlDialect): CompiledSql[] {
  const bind = (text: string, values: unknown[]): CompiledSql => {
    const p = new SqlParams(d);
    let i = 0;
    return { sql: text.replace(/\?/g, () => p.add(values[i++])), params: p.values };
  };
  return [
    ...delta.statsRows().map((r) =>
      bind(
        STATS_UPSERT_SQL,
        STATS_COLUMNS.map((c) => r[c]),
      ),
    ),
    ...delta.latencyRows().map((r) =>
      bind(
        LATENCY_UPSERT_SQL,
        LATENCY_COLUMNS.map((c) => r[c]),
      ),
    ),
  ];
}
