import type { CallField } from '../../../domain/call-fields.js';
import type { Operand } from '../../../domain/query/ast.js';
import type { CallsQuery } from '../../types.js';
import { entriesFor, everyCallUntilFilled, FILL_NAMES, unindexedCalls, type WalkEntries } from './coverage.js';
import type { AccessPath, PlannedQuery } from './access-path.js';
import type { SqlDialect, SqlParams } from '../core/sql-dialect.js';

/**
 * `summary.weave.status` (docs/spec/calls.md §2.6) on the query side and in `call_status`
 * (migration 020): one SQL expression per store, used by the query compiler (calls-query/expr.ts, through
 * `SqlDialect.derivedStatus`), by the call indexer that writes the entries (call-indexes/text-index.ts) and
 * by the migration that fills them, so an entry holds exactly the status a query computes.
 */

/** Every value the derived status takes. */
export const CALL_STATUSES = ['descendant_error', 'error', 'running', 'success'] as const;

const derived = (errors: string): string =>
  `(CASE WHEN c.exception IS NOT NULL THEN 'error' WHEN c.ended_at IS NULL THEN 'running'
  WHEN COALESCE(${errors}, 0) > 0 THEN 'descendant_error' ELSE 'success' END)`;

/**
 * SQLite: the number at `summary.status_counts.error` as sqlite-dialect.ts `jsonNumber` reads it
 * (numbers, numeric strings), with the key path written as a literal so that the migration can use
 * it; test/store/contract/calls-status-index.test.ts checks that the two agree.
 */
const SQLITE_AT = `'$."status_counts"."error"'`;
export const SQLITE_DERIVED_STATUS = derived(
  `(CASE json_type(c.summary, ${SQLITE_AT}) WHEN 'integer' THEN json_extract(c.summary, ${SQLITE_AT}) WHEN 'real' THEN json_extract(c.summary, ${SQLITE_AT})
      WHEN 'text' THEN heddle_text_to_double(json_extract(c.summary, ${SQLITE_AT})) END)`,
);

/** PostgreSQL: the same as postgres-dialect.ts `jsonNumber` reads it. */
const POSTGRES_AT = `(c.summary #> '{status_counts,error}'::text[])`;
export const POSTGRES_DERIVED_STATUS = derived(
  `(CASE jsonb_typeof(${POSTGRES_AT}) WHEN 'number' THEN (${POSTGRES_AT})::float8 WHEN 'string' THEN heddle_text_to_double(${POSTGRES_AT} #>> '{}') END)`,
);

/**
 * Writes the `call_status` entries of the started calls `c` matching `where` (the call indexer and
 * its fills, call-indexes/entry-fills.ts): the call's status and `started_at` as they are now. Entries
 * already there are kept; those of calls whose status or start changed since are stale, and queries
 * skip them by comparing with the call (`statusCandidates`). `table`: `call_status_roots` (migration
 * 030) takes the same entries of trace roots.
 */
export const insertStatusSql = (status: string, from: string, where: string, table = 'call_status'): string =>
  `INSERT INTO ${table} (project_id, status, started_at, id)
  SELECT c.project_id, ${status}, c.started_at, c.id FROM ${from} WHERE (${where}) AND c.started_at IS NOT NULL
  ON CONFLICT DO NOTHING`;

/** `call_status` (migration 020) and the roots' `call_status_roots` (migration 030), for `entriesFor`. */
export const STATUS_ENTRIES = {
  all: { table: 'call_status', fill: FILL_NAMES.status },
  roots: { table: 'call_status_roots', fill: FILL_NAMES.statusRoots },
} as const satisfies { all: WalkEntries; roots: WalkEntries };

/**
 * How a query's page can be read along `call_status`: the statuses it can match, and the order of
 * its calls within one status (`started_at` then `id`, along the primary key, or `id` alone, along
 * `call_status_by_id`), each direction as the compiled ORDER BY has it (calls-query/select.ts `orderTerms`).
 */
export interface StatusWalk {
  statuses: readonly string[];
  /** null: any order (a capped count, calls-query/select.ts `statusCount`). */
  by: 'started_at' | 'id' | null;
  startDir: 'ASC' | 'DESC';
  idDir: 'ASC' | 'DESC';
}

const isStatus = (node: Operand<CallField>): boolean =>
  node.kind === 'field' && node.field.kind === 'derived' && node.field.name === 'status';
const isColumn = (field: CallField, name: string): boolean => field.kind === 'column' && field.name === name;
const upper = (direction: 'asc' | 'desc'): 'ASC' | 'DESC' => (direction === 'asc' ? 'ASC' : 'DESC');

/**
 * The statuses a condition allows when it is `status == "x"` or `status $in [...]` of string
 * literals, itself or as a part of a top-level `$and` (several: those all allow); null when no part
 * is such a test. Literals that are not a status leave fewer (an empty list: nothing matches).
 */
export function statusesOf(node: Operand<CallField>): string[] | null {
  if (node.kind === 'and') {
    let out: string[] | null = null;
    for (const arg of node.args) {
      const some = statusesOf(arg);
      if (some !== null) out = out === null ? some : out.filter((s) => some.includes(s));
    }
    return out;
  }
  let literals: Operand<CallField>[] | null = null;
  if (node.kind === 'compare' && node.op === 'eq') {
    if (isStatus(node.left)) literals = [node.right];
    else if (isStatus(node.right)) literals = [node.left];
  } else if (node.kind === 'in' && isStatus(node.left)) literals = node.list;
  if (literals === null || literals.some((l) => l.kind !== 'literal')) return null;
  const values = literals.map((l) => (l as { value: unknown }).value);
  return CALL_STATUSES.filter((s) => values.includes(s));
}

/**
 * The walk along `call_status` for a query filtered by status and sorted by start (the default sort,
 * or `started_at` then optionally `id`), or sorted by status (alone, then `id`, or then `started_at`
 * and optionally `id`), each with `id` as the compiled tie-break; null for any other shape.
 */
export function statusWalk(q: CallsQuery): StatusWalk | null {
  const filtered = q.where ? statusesOf(q.where) : null;
  const sortBy = q.sort_by;
  if (sortBy == null) return filtered && { statuses: filtered, by: 'started_at', startDir: 'ASC', idDir: 'ASC' };
  if (sortBy.length === 0) return null;
  const [first, ...rest] = sortBy;
  const sortsByStatus = first!.field.kind === 'derived' && first!.field.name === 'status';
  const keys = sortsByStatus ? rest : sortBy;
  const statuses = filtered ?? (sortsByStatus ? CALL_STATUSES : null);
  if (statuses === null || keys.length > 2) return null;
  const [a, b] = keys;
  if (a === undefined) return { statuses, by: 'id', startDir: 'ASC', idDir: 'DESC' };
  if (isColumn(a.field, 'id') && b === undefined)
    return { statuses, by: 'id', startDir: 'ASC', idDir: upper(a.direction) };
  if (!isColumn(a.field, 'started_at')) return null;
  if (b !== undefined && !isColumn(b.field, 'id')) return null;
  return { statuses, by: 'started_at', startDir: upper(a.direction), idDir: upper((b ?? a).direction) };
}

/**
 * The candidates of a page read along `call_status` (docs/query-performance.md "The status filter
 * and sort off the commit path"): for each status of the walk, the first `n` entries in the page's
 * order whose call has that status and that start now (others are stale) and matches `where` (the
 * query's whole WHERE over `c`), and the calls after the project's mark of the call indexer
 * (`unindexedCalls`, every call when no mark covers the project), and every call of the project until
 * its fill of the entries is done (call-indexes/entry-fills.ts). A call of the first `n` of the page is
 * either after the mark or has its current entry among the first `n` of its status. `tail`: how the
 * ids of those two sources are read (as they are for a page; a count tests their calls). `entries`:
 * `call_status`, or for a roots-only query the roots' `call_status_roots` (`STATUS_ENTRIES`), gated by
 * its own fill.
 *
 * The call of an entry is tested in a scalar subquery (one row or none: the primary key), which
 * neither store turns into a join: as a join, PostgreSQL (which cannot estimate the status
 * expression) read every call of the project and sorted the entries instead of walking them in
 * order. `IS NOT NULL` rather than `= 1`: PostgreSQL estimates that most entries pass it, so the
 * walk's estimated cost stays that of about `n` entries (with `= 1` it estimated reading most of the
 * status, which at 30,000 calls already passed `jit_above_cost`: 130 ms of JIT compilation for a
 * 2 ms walk). The query's time range bounds the walk too (a current entry's start is its call's).
 */
export function statusCandidates(
  walk: StatusWalk,
  q: Pick<CallsQuery, 'project_id' | 'started_from' | 'started_before'>,
  n: number,
  where: (p: SqlParams) => string,
  d: SqlDialect,
  p: SqlParams,
  entries: WalkEntries,
  tail: (ids: string) => string = (ids) => ids,
): string {
  const project = p.add(q.project_id);
  const { table, fill } = entries;
  const order =
    walk.by === null
      ? ''
      : `ORDER BY ${walk.by === 'id' ? `s.id ${walk.idDir}` : `s.started_at ${walk.startDir}, s.id ${walk.idDir}`}`;
  let range = '';
  if (q.started_from != null) range += ` AND s.started_at >= ${p.add(q.started_from)}`;
  if (q.started_before != null) range += ` AND s.started_at < ${p.add(q.started_before)}`;
  const walks = walk.statuses.map(
    (status) => `SELECT id FROM (SELECT s.id FROM ${table} s
        WHERE s.project_id = ${project} AND s.status = ${p.add(status)}${range}
          AND (SELECT 1 FROM calls c WHERE c.project_id = s.project_id AND c.id = s.id
            AND c.started_at = s.started_at AND ${d.derivedStatus} = s.status AND ${where(p)}) IS NOT NULL
        ${order} ${d.limitOffset(n, null, p)}) e`,
  );
  const unindexed = [unindexedCalls('id', project), everyCallUntilFilled(project, fill)];
  return [...walks, ...unindexed.map(tail)].join(' UNION ALL ');
}

/** The status entries a query's walk reads (`STATUS_ENTRIES`). */
export const statusEntries = (plan: PlannedQuery): WalkEntries =>
  entriesFor(STATUS_ENTRIES, plan.q.filter?.trace_roots_only === true, plan.states.filled);

/**
 * A query filtered by `summary.weave.status` and sorted by start, or sorted by status (calls-query/status.ts
 * `statusWalk` names the shapes), with a limit, on a project the call indexer covers: the candidates
 * of its page along `call_status` (migration 020) and the calls after the project's mark
 * (calls-query/status.ts `statusCandidates`; docs/query-performance.md "The status filter and sort off the
 * commit path"). The query then filters and orders them exactly as the plain query orders all calls,
 * so the page is the same. Null where the plain query keeps its plan: as for the latency sort, where
 * an equality, a `$contains` or a list of ids already narrows the query to a few calls.
 */
export const STATUS_PATH: AccessPath = {
  name: 'status',
  candidates(plan) {
    const { q, d } = plan;
    if (!plan.states.filled(FILL_NAMES.status) || !q.limit || q.changed_after) return null;
    const walk = statusWalk(q);
    if (walk === null || plan.narrowed) return null;
    const entries = statusEntries(plan);
    return { ids: (p) => statusCandidates(walk, q, plan.rows, (wp) => plan.where(wp), d, p, entries), driving: true };
  },
};
