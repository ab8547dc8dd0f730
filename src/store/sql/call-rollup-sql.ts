import { SUM_COLUMNS, type RollupDelta, type RollupSource } from '../../domain/call-rollup.js';
import type { CompiledSql } from './calls-select.js';
import { SqlParams, type SqlDialect } from './sql-dialect.js';

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

/**
 * PostgreSQL: the same upserts for a whole delta in one statement, each table's rows as a JSON
 * array of arrays in STATS_COLUMNS / LATENCY_COLUMNS order ($1 the sums, $2 the histogram, either
 * may be `[]`). The sums are a data-modifying CTE the main statement does not read, so PostgreSQL
 * runs it after the histogram upsert, always: every writer locks the roll-up rows in one order.
 */
const fromArray = (param: string, columns: readonly string[], type: (c: string) => string): string =>
  `SELECT ${columns.map((c, i) => `(e->>${i})::${type(c)}`).join(', ')} FROM jsonb_array_elements(${param}::jsonb) AS e`;

export const PG_ROLLUP_UPSERT_SQL = `WITH sums AS (
    INSERT INTO call_rollups (${STATS_COLUMNS.join(', ')})
    ${fromArray('$1', STATS_COLUMNS, pgType)}
    ON CONFLICT (${KEY_COLUMNS.join(', ')}) DO UPDATE SET ${addTo('call_rollups', SUM_COLUMNS)})
  INSERT INTO call_rollup_latency (${LATENCY_COLUMNS.join(', ')})
  ${fromArray('$2', LATENCY_COLUMNS, (c) => (c === 'bin' ? 'integer' : pgType(c)))}
  ON CONFLICT (${KEY_COLUMNS.join(', ')}, bin) DO UPDATE SET calls = call_rollup_latency.calls + excluded.calls`;

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

/** The upserts of a merged delta as statements of the shared transaction runner (sql-tx.ts). */
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
