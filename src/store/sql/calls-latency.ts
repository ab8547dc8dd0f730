/**
 * `summary.weave.latency_ms` (docs/spec/calls.md §2.6): floor((ended - started) / 1 ms) on
 * microsecond integers; NULL while either is missing (a running call, or an end before its start).
 * The call writers store it in `calls.latency_ms` (migration 016) with this expression over the
 * values the row ends with, and the query compiler computes it the same way for projects whose
 * backfill has not reached them yet (calls-expr.ts).
 */
export function latencyMsSql(endedAt: string, startedAt: string): string {
  const span = `(${endedAt} - ${startedAt})`;
  return `((${span} - (((${span} % 1000) + 1000) % 1000)) / 1000)`;
}

/**
 * The key under which `call_latency` (migration 019) files a call whose latency is NULL (running,
 * or an end without its start): the largest 64-bit integer, which no latency reaches (a span in
 * microseconds divided by 1,000). Written as a SQL literal, never bound (JavaScript numbers cannot
 * hold it exactly).
 */
export const NULL_LATENCY_KEY = '9223372036854775807';

/**
 * The `call_latency` key of the call `c` (SQL): its stored `latency_ms`, or, where the backfill of
 * migration 016 has not set it yet, the value that backfill will set (both columns known); the
 * NULL key otherwise. So an entry equals the call's `latency_ms` once the project is backfilled,
 * the only state in which queries read the entries (calls-select.ts).
 */
export const LATENCY_KEY_SQL = `COALESCE(c.latency_ms, ${latencyMsSql('c.ended_at', 'c.started_at')}, ${NULL_LATENCY_KEY})`;

/**
 * Writes the `call_latency` entries of the calls `c` matching `where` (the call indexer,
 * call-text-index.ts, and its fills, call-entry-fills.ts). Entries already there are kept: the stale
 * ones of calls whose latency changed since stay, and queries skip them by comparing with
 * `c.latency_ms`. (`ON CONFLICT DO NOTHING` after `INSERT … SELECT … WHERE` parses the same on both
 * stores.) `table`: `call_latency_roots` (migration 028) takes the same entries of trace roots.
 */
export const insertLatencySql = (from: string, where: string, table = 'call_latency'): string =>
  `INSERT INTO ${table} (project_id, latency_ms, id) SELECT c.project_id, ${LATENCY_KEY_SQL}, c.id FROM ${from} WHERE ${where}
  ON CONFLICT DO NOTHING`;
