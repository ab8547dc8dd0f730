import type { SqlParams } from '../core/sql-dialect.js';
import { entriesFor, everyCallUntilFilled, FILL_NAMES, unindexedCalls } from './coverage.js';
import type { AccessPath } from './access-path.js';

/**
 * `summary.weave.latency_ms` (docs/spec/calls.md §2.6): floor((ended - started) / 1 ms) on
 * microsecond integers; NULL while either is missing (a running call, or an end before its start).
 * The call writers store it in `calls.latency_ms` (migration 016) with this expression over the
 * values the row ends with, and the query compiler computes it the same way for projects whose
 * backfill has not reached them yet (calls-query/expr.ts).
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
 * the only state in which queries read the entries (calls-query/select.ts).
 */
export const LATENCY_KEY_SQL = `COALESCE(c.latency_ms, ${latencyMsSql('c.ended_at', 'c.started_at')}, ${NULL_LATENCY_KEY})`;

/**
 * Writes the `call_latency` entries of the calls `c` matching `where` (the call indexer,
 * call-indexes/text-index.ts, and its fills, call-indexes/entry-fills.ts). Entries already there are kept: the stale
 * ones of calls whose latency changed since stay, and queries skip them by comparing with
 * `c.latency_ms`. (`ON CONFLICT DO NOTHING` after `INSERT … SELECT … WHERE` parses the same on both
 * stores.) `table`: `call_latency_roots` (migration 028) takes the same entries of trace roots.
 */
export const insertLatencySql = (from: string, where: string, table = 'call_latency'): string =>
  `INSERT INTO ${table} (project_id, latency_ms, id) SELECT c.project_id, ${LATENCY_KEY_SQL}, c.id FROM ${from} WHERE ${where}
  ON CONFLICT DO NOTHING`;

/** `call_latency` (migration 019) and the roots' `call_latency_roots` (migration 028), for `entriesFor`. */
const LATENCY_ENTRIES = {
  all: { table: 'call_latency', fill: FILL_NAMES.latency },
  roots: { table: 'call_latency_roots', fill: FILL_NAMES.latencyRoots },
} as const;

/**
 * A sort whose first key is `summary.weave.latency_ms`, with a limit, on a project whose latency
 * column is backfilled and whose call indexer covers it: the candidates of its page
 * (docs/query-performance.md "The latency sort off the commit path"). Null where the plain query keeps
 * the plan.
 *
 * `call_latency` (migration 019) holds an entry for every call at or below the project's mark of
 * the call indexer once the project's fill is done (call-indexes/entry-fills.ts; until then every call is a
 * candidate), keyed by its latency (NULL as NULL_LATENCY_KEY); a roots-only query reads the roots'
 * entries, `call_latency_roots` (migration 028), once their fill is done. Entries of calls whose latency
 * changed since are stale and skipped by comparing with `c.latency_ms`. So the first `limit +
 * offset` calls of the page's order that match the query are among: the first `limit + offset`
 * current entries in that order whose call matches (non-NULL latencies, then NULL ones, each read
 * along the key), and the calls after the mark (`unindexedCalls`, which also holds every call
 * when no mark covers the project); a call in both is one candidate all the same (`c.id IN`). The query
 * then filters and orders those candidates exactly as the plain query orders all calls, so the page
 * is the same. The order within the entries must match the page's to the last tie: so only for a
 * sort by latency alone or by latency then `id` (others keep the plain plan), and not where an
 * equality, a `$contains` or a list of traces, parents, calls, threads or turns already narrows the
 * query to a few calls (those are found by their index and sorted, where walking the entries would
 * read the project's until the page is full).
 */
export const LATENCY_PATH: AccessPath = {
  name: 'latency',
  candidates(plan) {
    const { q, d, states } = plan;
    const sortBy = q.sort_by;
    if (!states.backfilled || !states.filled(FILL_NAMES.latency)) return null;
    if (!q.limit || q.changed_after || sortBy == null || sortBy.length === 0) return null;
    const [first, ...rest] = sortBy;
    if (first!.field.kind !== 'derived' || first!.field.name !== 'latency_ms') return null;
    if (rest.length > 1 || rest.some((key) => key.field.kind !== 'column' || key.field.name !== 'id')) return null;
    if (plan.narrowed) return null;
    const dir = first!.direction === 'asc' ? 'ASC' : 'DESC';
    // the tie-break select.ts `orderTerms` adds: id descending unless the sort names it
    const idDir = rest[0]?.direction === 'asc' ? 'ASC' : 'DESC';
    const { table, fill } = entriesFor(LATENCY_ENTRIES, q.filter?.trace_roots_only === true, states.filled);
    const ids = (p: SqlParams): string => {
      const project = p.add(q.project_id);
      const entries = (key: string, matches: string, order: string): string =>
        `SELECT id FROM (SELECT l.id FROM ${table} l CROSS JOIN calls c
          WHERE l.project_id = ${project} AND ${key} AND c.project_id = l.project_id AND c.id = l.id AND ${matches}
            AND ${plan.where(p)}
          ORDER BY ${order} ${d.limitOffset(plan.rows, null, p)}) e`;
      return [
        entries(
          `l.latency_ms < ${NULL_LATENCY_KEY}`,
          'c.latency_ms = l.latency_ms',
          `l.latency_ms ${dir}, l.id ${idDir}`,
        ),
        entries(`l.latency_ms = ${NULL_LATENCY_KEY}`, 'c.latency_ms IS NULL', `l.id ${idDir}`),
        unindexedCalls('id', project),
        everyCallUntilFilled(project, fill),
      ].join(' UNION ALL ');
    };
    return { ids, driving: false };
  },
};
