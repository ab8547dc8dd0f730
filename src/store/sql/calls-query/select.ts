import { ALL_CALL_COLUMNS, ALWAYS_SELECTED, type CallsQuery } from '../../types.js';
import { checkSqlBudget, SqlParams, withinSqlBudget, type SqlDialect } from '../core/sql-dialect.js';
import type { CompiledSql } from '../core/sql-tag.js';
import { FILL_NAMES } from './coverage.js';
import { LATENCY_PATH } from './latency.js';
import { NAME_PATHS } from './names.js';
import type { AccessPath, Candidates, IndexState } from './access-path.js';
import { filterConditions, QueryPlan } from './plan.js';
import { STATUS_PATH, statusCandidates, statusEntries, statusesOf } from './status.js';
import { COST_PATH, TOKENS_PATH } from './tokens-sort.js';

export type { IndexState } from './access-path.js';

/**
 * The calls query planner: the plain statement reads `calls` in the page's order; an access path
 * (one file each: the side table's upkeep SQL, when it applies, its candidate walk) proposes the
 * candidates of a page instead, which the same statement then filters and orders, so the page is
 * the same. The first path, in this order, whose index is readable and whose shape the query has
 * wins (docs/query-performance.md).
 */
export const ACCESS_PATHS: readonly AccessPath[] = [LATENCY_PATH, STATUS_PATH, ...NAME_PATHS, TOKENS_PATH, COST_PATH];

/**
 * SELECT for `/calls/stream_query` and friends. `indexed`: the project's call indexes (migration
 * 014) are complete, so the compiled query may read them (call-indexes/backfill.ts).
 */
export function compileCallsSelect(q: CallsQuery, d: SqlDialect, indexed: IndexState = false): CompiledSql {
  const plan = new QueryPlan(q, d, indexed);
  for (const path of ACCESS_PATHS) {
    const candidates = path.candidates(plan);
    if (candidates === null) continue;
    // the filter is spliced in several times there: one too large for that keeps the plain query
    // (a budget passed while compiling throws; the plain query then throws whatever it must itself)
    const compiled = withinSqlBudget(() => compileSelect(plan, candidates));
    if (compiled !== null) return compiled;
    break;
  }
  const compiled = compileSelect(plan, null);
  checkSqlBudget(compiled.sql.length, compiled.params.length);
  return compiled;
}

/** The SELECT, its rows among the `candidates` when given. */
function compileSelect(plan: QueryPlan, candidates: Candidates | null): CompiledSql {
  const { q, d } = plan;
  const p = new SqlParams(d);
  const select = selectList(q, d, p);
  let from = 'calls c';
  if (candidates?.driving === true) from = `(SELECT DISTINCT u.id FROM (${candidates.ids(p)}) u) k CROSS JOIN calls c`;
  let where = candidates === null ? plan.where(p) : plan.whereAmongCandidates(p);
  if (candidates?.driving === true) where += ' AND c.id = k.id';
  if (candidates?.driving === false) where += ` AND c.id IN (${candidates.ids(p)})`;
  const order = orderBy(plan, p, candidates !== null);
  const limit = d.limitOffset(q.limit ? q.limit : null, q.offset ? q.offset : null, p);
  return { sql: `SELECT ${select} FROM ${from} WHERE ${where} ORDER BY ${order} ${limit}`, params: p.values };
}

function orderBy(plan: QueryPlan, p: SqlParams, amongCandidates: boolean): string {
  const { q, d } = plan;
  if (q.changed_after) return 'c.change_seq ASC, c.id ASC';
  // a few ids read through call_values, the substring index or a walk of call_latency or
  // call_status are sorted, not found by walking an index in sort order
  const terms = orderTerms(plan, p);
  const few = amongCandidates || plan.narrowsById;
  return (few ? terms.map((term) => d.unindexed(term)) : terms).join(', ');
}

function orderTerms(plan: QueryPlan, p: SqlParams): string[] {
  const { q, d } = plan;
  const sortBy = q.sort_by;
  if (sortBy == null) return ['c.started_at ASC', 'c.id ASC'];
  if (sortBy.length === 0) return [d.insertionOrder];
  const compiler = plan.compiler(p);
  const terms = sortBy.flatMap((key) => compiler.sortTerms(key.field, key.direction));
  const sortsById = sortBy.some((key) => key.field.kind === 'column' && key.field.name === 'id');
  if (!sortsById) {
    const last = sortBy[sortBy.length - 1]!.field;
    const lastIsStart = last.kind === 'column' && last.name === 'started_at';
    terms.push(`c.id ${lastIsStart ? sortBy[sortBy.length - 1]!.direction.toUpperCase() : 'DESC'}`);
  }
  return terms;
}

function selectList(q: CallsQuery, d: SqlDialect, p: SqlParams): string {
  const wanted = q.columns ? [...new Set([...ALWAYS_SELECTED, ...q.columns])] : ALL_CALL_COLUMNS;
  const items = wanted.map((column) => `c.${column}`);
  const size = ['attributes', 'inputs', 'output', 'summary'].map((column) => d.byteLength(`c.${column}`)).join(' + ');
  if (q.include_storage_size) items.push(`(${size}) AS storage_size_bytes`);
  if (q.include_total_storage_size)
    items.push(`${totalStorageSize(d, p.add(q.project_id))} AS total_storage_size_bytes`);
  if (q.include_usernames) items.push('(SELECT u.username FROM users u WHERE u.id = c.wb_user_id) AS wb_username');
  if (q.changed_after) items.push('c.change_seq');
  return items.join(', ');
}

/**
 * On a trace root: the summed storage of every live call of its trace; NULL elsewhere. The project
 * is the parameter `project`, not `c.project_id`: Citus runs a statement as it is on one shard only
 * when every distributed table in it is filtered by a constant project.
 */
function totalStorageSize(d: SqlDialect, project: string): string {
  const size = ['attributes', 'inputs', 'output', 'summary'].map((column) => d.byteLength(`t.${column}`)).join(' + ');
  return `(CASE WHEN c.parent_id IS NULL THEN (SELECT SUM(${size}) FROM calls t
    WHERE t.project_id = ${project} AND t.trace_id = c.trace_id AND t.started_at IS NOT NULL AND t.deleted_at IS NULL) END)`;
}

/**
 * Whether a count asks for every visible call of the project: no filter that narrows, no expression,
 * no time range, no change cursor, no storage sums. Those counts come from `call_counts`.
 */
function countsAllCalls(q: CallsQuery, d: SqlDialect): boolean {
  if (q.where || q.started_from != null || q.started_before != null || q.changed_after) return false;
  if (q.include_total_storage_size) return false;
  return !q.filter || filterConditions(q.filter, d, new SqlParams(d)).length === 0;
}

/** COUNT (capped at limit + 1 so `has_more` is known) and, on request, the summed trace storage of matching roots. */
export function compileCallsCount(q: CallsQuery, d: SqlDialect, indexed: IndexState = false): CompiledSql {
  const p = new SqlParams(d);
  const plan = new QueryPlan(q, d, indexed);
  if (plan.states.backfilled && countsAllCalls(q, d)) {
    // the per-hour counters that triggers on `calls` keep (migration 016): no scan of the calls
    const sum = `(SELECT CAST(COALESCE(SUM(k.calls), 0) AS BIGINT) FROM call_counts k WHERE k.project_id = ${p.add(q.project_id)})`;
    const count = q.limit ? `CASE WHEN n > ${p.add(q.limit + 1)} THEN ${p.add(q.limit + 1)} ELSE n END` : 'n';
    return {
      sql: `SELECT ${count} AS count, NULL AS total_storage_size_bytes FROM (SELECT ${sum} AS n) s`,
      params: p.values,
    };
  }
  const byStatus = statusCount(plan);
  if (byStatus !== null) return byStatus;
  const where = plan.where(p);
  const total = q.include_total_storage_size ? `, ${totalStorageSize(d, p.add(q.project_id))} AS total` : '';
  const limit = q.limit ? d.limitOffset(q.limit + 1, null, p) : '';
  const inner = `SELECT 1 AS one${total} FROM calls c WHERE ${where} ${limit}`;
  const sumTotal = q.include_total_storage_size ? 'COALESCE(SUM(total), 0)' : 'NULL';
  const sql = `SELECT COUNT(*) AS count, ${sumTotal} AS total_storage_size_bytes FROM (${inner}) matched`;
  checkSqlBudget(sql.length, p.values.length);
  return { sql, params: p.values };
}

/**
 * A count with a limit (the UI's is capped) of a query with a status test (calls-query/status.ts
 * `statusesOf`), on a project the call indexer covers: the matches among the first `limit + 1`
 * current matching entries of each status (any order) and the calls after the mark, counted up to
 * `limit + 1`. Exact: where a status has `limit + 1` such entries the cap is reached, otherwise
 * every match is a candidate. Null where the scan stays (no limit, storage sums, the shapes
 * `STATUS_PATH` leaves to the plain plan, or past the SQL budget).
 */
function statusCount(plan: QueryPlan): CompiledSql | null {
  const { q, d } = plan;
  if (!plan.states.filled(FILL_NAMES.status) || !q.limit || q.changed_after || q.include_total_storage_size)
    return null;
  const statuses = q.where ? statusesOf(q.where) : null;
  if (statuses === null || plan.narrowed) return null;
  const cap = q.limit + 1;
  return withinSqlBudget(() => {
    const p = new SqlParams(d);
    const walk = { statuses, by: null, startDir: 'ASC', idDir: 'ASC' } as const;
    const where = (wp: SqlParams): string => plan.where(wp);
    // the entries' calls are tested once, in the walk; only the tail's are looked up here
    const tail = (ids: string): string => `SELECT c.id FROM (${ids}) t CROSS JOIN calls c
      WHERE ${plan.whereAmongCandidates(p)} AND c.id = t.id`;
    const ids = statusCandidates(walk, q, cap, where, d, p, statusEntries(plan), tail);
    const inner = `SELECT DISTINCT u.id FROM (${ids}) u ${d.limitOffset(cap, null, p)}`;
    return {
      sql: `SELECT COUNT(*) AS count, NULL AS total_storage_size_bytes FROM (${inner}) matched`,
      params: p.values,
    };
  });
}
