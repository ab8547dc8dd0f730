import type { CallsQuery } from '../types.js';
import { unindexedCalls } from './calls-expr-text.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';

/**
 * A sort whose first key is `summary.weave.total_tokens` (calls-tokens.ts), with a limit, on a
 * project the call indexer covers: the candidates of its page (docs/query-performance.md "The token
 * sort off the commit path"), as the latency sort reads `call_latency` (calls-select.ts
 * `latencySortIds`). Null where the plain query keeps its plan.
 *
 * `call_tokens` (migration 022) holds an entry for every call at or below the project's mark of the
 * call indexer, keyed by its total (`is_null = 1` when it has none); entries of calls whose total
 * changed since are stale and skipped by comparing with the call's total now. So the first `limit +
 * offset` calls of the page's order that match the query are among: the first `limit + offset`
 * current entries in that order whose call matches (totals, then the NULL half, each read along the
 * key), and the calls after the mark (`unindexedCalls`, which also holds every call when no mark
 * covers the project). The query then filters and orders those candidates exactly as the plain query
 * orders all calls, so the page is the same. Only for a sort by tokens alone or tokens then `id` (the
 * order within the entries must match the page's to the last tie), and not where the caller says an
 * index already narrows the query to a few calls (`narrowed`).
 *
 * `where(p)`: the query's WHERE clause over `c` (calls-select.ts `callsWhere`).
 */
export function tokensSortIds(
  q: CallsQuery,
  d: SqlDialect,
  covered: boolean,
  narrowed: boolean,
  where: (p: SqlParams) => string,
): ((p: SqlParams) => string) | null {
  const sortBy = q.sort_by;
  if (!covered || narrowed || !q.limit || q.changed_after || sortBy == null || sortBy.length === 0) return null;
  const [first, ...rest] = sortBy;
  if (first!.field.kind !== 'derived' || first!.field.name !== 'total_tokens') return null;
  if (rest.length > 1 || rest.some((key) => key.field.kind !== 'column' || key.field.name !== 'id')) return null;
  const dir = first!.direction === 'asc' ? 'ASC' : 'DESC';
  // the tie-break calls-select.ts `orderTerms` adds: id descending unless the sort names it
  const idDir = rest[0]?.direction === 'asc' ? 'ASC' : 'DESC';
  const n = q.limit + (q.offset ?? 0);
  return (p) => {
    const project = p.add(q.project_id);
    // the call of an entry is tested in a scalar subquery, as calls-status.ts `statusCandidates` does
    // and for its reason: as a join, PostgreSQL (which cannot estimate the total's expression) hashed
    // every call of the project with its total and sorted the entries (1 s at 100,000 calls). Every
    // NULL entry has tokens = 0: saying so lets that walk follow the key in id order.
    const entries = (isNull: 0 | 1, current: string, order: string): string =>
      `SELECT id FROM (SELECT l.id FROM call_tokens l
        WHERE l.project_id = ${project} AND l.is_null = ${isNull}${isNull === 1 ? ' AND l.tokens = 0' : ''}
          AND (SELECT 1 FROM calls c WHERE c.project_id = l.project_id AND c.id = l.id
            AND ${where(p)} AND ${current}) IS NOT NULL
        ORDER BY ${order} ${d.limitOffset(n, null, p)}) e`;
    // the NULL half only when the totals give fewer than n (NULLs sort after every total): both stores
    // read a UNION ALL under a LIMIT lazily, so with n current totals the NULL half is never walked
    // (a filter that matches calls with usage would otherwise read the whole half, most of the project)
    const halves = `SELECT h.id FROM (${entries(0, `${d.derivedTokens} = l.tokens`, `l.tokens ${dir}, l.id ${idDir}`)}
      UNION ALL ${entries(1, `${d.derivedTokens} IS NULL`, `l.id ${idDir}`)}) h ${d.limitOffset(n, null, p)}`;
    return `SELECT x.id FROM (${halves}) x UNION ALL ${unindexedCalls('id', project)}`;
  };
}
