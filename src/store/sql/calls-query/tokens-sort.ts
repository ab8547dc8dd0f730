import type { CallsQuery } from '../../types.js';
import { currentCostGen, defaultPricesStamp } from './cost.js';
import { everyCallUntilFilled, everyCallWhen, FILL_NAMES, unindexedCalls } from './coverage.js';
import type { SqlDialect, SqlParams } from '../core/sql-dialect.js';
import type { AccessPath } from './access-path.js';

/**
 * The entries of a derived number that a sort walks: `call_tokens` (migration 022, the token total)
 * and `call_cost` (migration 024, the cost), each keyed `(project_id, …, is_null, <number>, id)`.
 */
interface NumberEntries {
  /** The derived field of the sort's first key. */
  field: string;
  table: string;
  /** The entries' number column. */
  column: string;
  /** The call `c`'s number now (SQL). */
  value(d: SqlDialect, p: SqlParams): string;
  /** A condition on the entries `l` of the project `project` (a placeholder) beyond their key, or ''. */
  scope(project: string, p: SqlParams): string;
  /** The ids of every call of the project when the entries cannot be read now (SQL), or null. */
  whenUnreadable(project: string, p: SqlParams): string | null;
  /** Whether the entries say which are trace roots (`root`, with an index of the roots' entries). */
  roots: boolean;
}

const TOKEN_ENTRIES: NumberEntries = {
  field: 'total_tokens',
  table: 'call_tokens',
  column: 'tokens',
  value: (d) => d.derivedTokens,
  scope: () => '',
  whenUnreadable: (project) => everyCallUntilFilled(project, FILL_NAMES.tokens),
  roots: false,
};

/**
 * The token entries of trace roots (migration 025), for the traces page's roots-only list: complete
 * once the project's fill is (call-indexes/entry-fills.ts); until then every call of the project is a
 * candidate, as for the cost's entries below (`rootsFilled` tells the compiler when to expect that).
 */
const TOKEN_ROOT_ENTRIES: NumberEntries = {
  ...TOKEN_ENTRIES,
  table: 'call_token_roots',
  whenUnreadable: (project) => everyCallUntilFilled(project, FILL_NAMES.tokenRoots),
};

/**
 * The cost's entries are read in the project's current generation (call-indexes/cost-entries.ts) when it is
 * complete; while it is not (just after a price change), every call of the project is a candidate,
 * which is the plain query's answer: `costed` tells the compiler when to expect that and keep the plain
 * plan, but only this statement's own read of `call_cost_gens` is exact.
 */
const COST_ENTRIES: NumberEntries = {
  field: 'total_cost',
  table: 'call_cost',
  column: 'cost',
  value: (d, p) => d.derivedCost(p),
  scope: (project, p) => ` AND l.gen = ${currentCostGen(project, p.add(defaultPricesStamp()))}`,
  whenUnreadable: (project, p) =>
    everyCallWhen(`${currentCostGen(project, p.add(defaultPricesStamp()))} IS NULL`, project),
  roots: true,
};

/**
 * A sort whose first key is `summary.weave.total_tokens` (calls-query/tokens.ts), with a limit, on a
 * project the call indexer covers: the candidates of its page (docs/query-performance.md "The token
 * sort off the commit path"), as the latency sort reads `call_latency` (calls-query/select.ts
 * `latencySortIds`). Null where the plain query keeps its plan.
 *
 * `call_tokens` (migration 022) holds an entry for every call at or below the project's mark of the
 * call indexer once the project's fill is done (call-indexes/entry-fills.ts; until then every call is a
 * candidate, and `readable` false keeps the plain plan), keyed by its total (`is_null = 1` when it has none); entries of calls whose total
 * changed since are stale and skipped by comparing with the call's total now. So the first `limit +
 * offset` calls of the page's order that match the query are among: the first `limit + offset`
 * current entries in that order whose call matches (totals, then the NULL half, each read along the
 * key), and the calls after the mark (`unindexedCalls`, which also holds every call when no mark
 * covers the project). The query then filters and orders those candidates exactly as the plain query
 * orders all calls, so the page is the same. Only for a sort by tokens alone or tokens then `id` (the
 * order within the entries must match the page's to the last tie), and not where the caller says an
 * index already narrows the query to a few calls (`narrowed`). Roots only (the traces page's
 * default), the walk reads `call_token_roots` once the project's fill is done (`rootsFilled`), and
 * not the children's entries.
 *
 * `where(p)`: the query's WHERE clause over `c` (calls-query/select.ts `callsWhere`).
 */
export function tokensSortIds(
  q: CallsQuery,
  d: SqlDialect,
  readable: boolean,
  narrowed: boolean,
  where: (p: SqlParams) => string,
  rootsFilled = false,
): ((p: SqlParams) => string) | null {
  const roots = rootsFilled && q.filter?.trace_roots_only === true;
  return numberSortIds(roots ? TOKEN_ROOT_ENTRIES : TOKEN_ENTRIES, q, d, readable, narrowed, where);
}

/**
 * The same for `summary.weave.total_cost` (calls-query/cost.ts) along `call_cost` (migration 024): the
 * entries of the project's current generation (`COST_ENTRIES`), `costed` when the compiler last saw
 * it complete (call-indexes/text-index.ts `costCovers`).
 */
export function costSortIds(
  q: CallsQuery,
  d: SqlDialect,
  costed: boolean,
  narrowed: boolean,
  where: (p: SqlParams) => string,
): ((p: SqlParams) => string) | null {
  return numberSortIds(COST_ENTRIES, q, d, costed, narrowed, where);
}

function numberSortIds(
  entries: NumberEntries,
  q: CallsQuery,
  d: SqlDialect,
  covered: boolean,
  narrowed: boolean,
  where: (p: SqlParams) => string,
): ((p: SqlParams) => string) | null {
  const sortBy = q.sort_by;
  if (!covered || narrowed || !q.limit || q.changed_after || sortBy == null || sortBy.length === 0) return null;
  const [first, ...rest] = sortBy;
  if (first!.field.kind !== 'derived' || first!.field.name !== entries.field) return null;
  if (rest.length > 1 || rest.some((key) => key.field.kind !== 'column' || key.field.name !== 'id')) return null;
  const dir = first!.direction === 'asc' ? 'ASC' : 'DESC';
  // the tie-break calls-query/select.ts `orderTerms` adds: id descending unless the sort names it
  const idDir = rest[0]?.direction === 'asc' ? 'ASC' : 'DESC';
  const n = q.limit + (q.offset ?? 0);
  const { table, column } = entries;
  // the traces page lists roots only: their entries alone are walked where the entries say which they are
  const roots = entries.roots && q.filter?.trace_roots_only === true ? ' AND l.root = 1' : '';
  return (p) => {
    const project = p.add(q.project_id);
    // the call of an entry is tested in a scalar subquery, as calls-query/status.ts `statusCandidates` does
    // and for its reason: as a join, PostgreSQL (which cannot estimate the number's expression) hashed
    // every call of the project with its number and sorted the entries (1 s at 100,000 calls). Every
    // NULL entry has the number 0: saying so lets that walk follow the key in id order.
    const walk = (isNull: 0 | 1, current: string, order: string): string =>
      `SELECT id FROM (SELECT l.id FROM ${table} l
        WHERE l.project_id = ${project}${entries.scope(project, p)}${roots} AND l.is_null = ${isNull}${isNull === 1 ? ` AND l.${column} = 0` : ''}
          AND (SELECT 1 FROM calls c WHERE c.project_id = l.project_id AND c.id = l.id
            AND ${where(p)} AND ${current}) IS NOT NULL
        ORDER BY ${order} ${d.limitOffset(n, null, p)}) e`;
    // the NULL half only when the numbers give fewer than n (NULLs sort after every number): both
    // stores read a UNION ALL under a LIMIT lazily, so with n current numbers the NULL half is never
    // walked (a filter that matches calls with usage would otherwise read the whole half)
    const halves = `SELECT h.id FROM (${walk(0, `${entries.value(d, p)} = l.${column}`, `l.${column} ${dir}, l.id ${idDir}`)}
      UNION ALL ${walk(1, `${entries.value(d, p)} IS NULL`, `l.id ${idDir}`)}) h ${d.limitOffset(n, null, p)}`;
    const unreadable = entries.whenUnreadable(project, p);
    return [`SELECT x.id FROM (${halves}) x`, unindexedCalls('id', project), ...(unreadable ? [unreadable] : [])].join(
      ' UNION ALL ',
    );
  };
}

/** The token sort's path along `call_tokens` (`tokensSortIds`). */
export const TOKENS_PATH: AccessPath = {
  name: 'tokens',
  candidates(plan) {
    const { filled } = plan.states;
    const readable = filled(FILL_NAMES.tokens);
    const ids = tokensSortIds(
      plan.q,
      plan.d,
      readable,
      readable && plan.narrowed,
      (p) => plan.where(p),
      filled(FILL_NAMES.tokenRoots),
    );
    return ids && { ids, driving: false };
  },
};

/** The cost sort's path along `call_cost` (`costSortIds`). */
export const COST_PATH: AccessPath = {
  name: 'cost',
  candidates(plan) {
    const { costed } = plan.states;
    const ids = costSortIds(plan.q, plan.d, costed, costed && plan.narrowed, (p) => plan.where(p));
    return ids && { ids, driving: false };
  },
};
