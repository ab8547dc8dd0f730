import { REF_PREFIX } from '../../domain/refs.js';
import { ALL_CALL_COLUMNS, ALWAYS_SELECTED, type CallsFilter, type CallsQuery } from '../types.js';
import { CallsExprCompiler } from './calls-expr.js';
import {
  entriesFor,
  everyCallUntilFilled,
  FILL_NAMES,
  unindexedCalls,
  type FillName,
  type WalkEntries,
} from './calls-expr-text.js';
import { NULL_LATENCY_KEY } from './calls-latency.js';
import { DISPLAY_NAMES, nameCandidates, nameWalk, OP_NAMES, TRACE_NAMES, type NameEntries } from './calls-display.js';
import { STATUS_ENTRIES, statusCandidates, statusesOf, statusWalk } from './calls-status.js';
import { costSortIds, tokensSortIds } from './calls-tokens-sort.js';
import { checkSqlBudget, SqlParams, withinSqlBudget, type SqlDialect } from './sql-dialect.js';

export interface CompiledSql {
  sql: string;
  params: unknown[];
}

/**
 * Which indexes a project's query may read: `backfilled`, the counters and latency column of
 * migration 016 once its backfill is through the project (call-index-backfill.ts); `covered`, the
 * indexes the call indexer fills, `call_values`, the substring index and `call_latency`
 * (call-text-index.ts `covers`; calls-expr-values.ts, calls-expr-text.ts, `latencySortIds` below);
 * `costed`, the cost entries of migration 024 complete at the project's prices (`costCovers`);
 * `pending`, the fills of the indexer's entries not done yet (call-entry-fills.ts, `pendingFills`;
 * none when absent). A boolean stands for all of them (`true`: every index readable, every fill done).
 */
export type IndexState =
  boolean | { backfilled: boolean; covered: boolean; costed?: boolean; pending?: readonly string[] };

interface IndexStates {
  backfilled: boolean;
  covered: boolean;
  costed: boolean;
  /** Whether the entries of the fill `name` are readable: the indexer covers the project and the fill is done. */
  filled(name: FillName): boolean;
}

const indexStates = (indexed: IndexState): IndexStates =>
  typeof indexed === 'boolean'
    ? { backfilled: indexed, covered: indexed, costed: indexed, filled: () => indexed }
    : {
        backfilled: indexed.backfilled,
        covered: indexed.covered,
        costed: indexed.costed === true && indexed.covered,
        filled: (name) => indexed.covered && !(indexed.pending ?? []).includes(name),
      };

function filterConditions(filter: CallsFilter, d: SqlDialect, p: SqlParams): string[] {
  const out: string[] = [];
  const list = (column: string, values: string[] | null | undefined, emptyMatchesNothing = false): void => {
    if (values == null) return;
    if (values.length === 0) {
      if (emptyMatchesNothing) out.push(d.falseLiteral);
      return;
    }
    out.push(d.inList(column, values, p));
  };
  // an entry ending in `:*` matches every version of that op or object ref (docs/spec/calls.md §5.4)
  const split = (entries: string[]): { exact: string[]; prefixes: string[] } => ({
    exact: entries.filter((e) => !e.endsWith(':*')),
    prefixes: entries.filter((e) => e.endsWith(':*')).map((e) => e.slice(0, -1)),
  });
  if (filter.op_names && filter.op_names.length > 0) {
    const { exact, prefixes } = split(filter.op_names);
    const parts = exact.length > 0 ? [d.inList('c.op_name', exact, p)] : [];
    for (const prefix of prefixes) parts.push(d.startsWith('c.op_name', prefix, p));
    out.push(parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`);
  }
  for (const [column, refs] of [
    ['inputs', filter.input_refs],
    ['output', filter.output_refs],
  ] as const) {
    if (!refs || refs.length === 0) continue;
    // only ref strings count as refs: an entry that is not a `weave:///` ref matches nothing
    const { exact, prefixes } = split(refs.filter((r) => r.startsWith(REF_PREFIX)));
    out.push(
      exact.length + prefixes.length === 0 ? d.falseLiteral : d.jsonHasString(`c.${column}`, exact, prefixes, p),
    );
  }
  list('c.parent_id', filter.parent_ids);
  list('c.trace_id', filter.trace_ids);
  list('c.id', filter.call_ids);
  list('c.thread_id', filter.thread_ids, true);
  list('c.turn_id', filter.turn_ids, true);
  list('c.wb_user_id', filter.wb_user_ids);
  list('c.wb_run_id', filter.wb_run_ids);
  if (filter.trace_roots_only) out.push('c.parent_id IS NULL');
  return out;
}

/**
 * The WHERE clause of a calls query (project scope, visibility, filter, expression, time range).
 * `amongCandidates`: the query reads a few candidate ids (the latency and status walks), so no
 * condition on the start may lead SQLite's planner to walk `calls_by_start` instead of looking them up.
 */
export function callsWhere(
  q: CallsQuery,
  d: SqlDialect,
  p: SqlParams,
  indexed: IndexState = false,
  amongCandidates = false,
): string {
  const narrowed = narrowsById(q, d, indexed);
  const start = narrowed || amongCandidates ? d.unindexed('c.started_at') : 'c.started_at';
  // the visible rows of the project: started, not deleted
  const visible = `${start} IS NOT NULL AND c.deleted_at IS NULL`;
  const byRowid = narrowed && compilerFor(q, d, new SqlParams(d), indexed).narrowsByTextIndexOnly(q.where!);
  const conditions = [`${byRowid ? d.unindexed('c.project_id') : 'c.project_id'} = ${p.add(q.project_id)}`, visible];
  if (q.filter) conditions.push(...filterConditions(q.filter, d, p));
  if (q.where) conditions.push(compilerFor(q, d, p, indexed).condition(q.where));
  if (q.started_from != null) conditions.push(`${start} >= ${p.add(q.started_from)}`);
  if (q.started_before != null) conditions.push(`${start} < ${p.add(q.started_before)}`);
  if (q.changed_after) {
    const { seq, id } = q.changed_after;
    conditions.push(`(c.change_seq, c.id) > (${p.add(seq)}, ${p.add(id)})`);
    if (d.changeHorizon && q.include_uncertain_changes !== true) conditions.push(`c.change_seq < ${d.changeHorizon}`);
  }
  return conditions.join(' AND ');
}

/** Whether the filter names the traces, parents, calls, threads or turns to read (each has its index). */
function narrowsByList(filter: CallsFilter | null | undefined): boolean {
  if (filter == null) return false;
  const lists = [filter.trace_ids, filter.parent_ids, filter.call_ids, filter.thread_ids, filter.turn_ids];
  return lists.some((list) => list != null && list.length > 0);
}

/** Whether the expression narrows the query to a few ids through `call_values` or the substring index. */
function narrowsById(q: CallsQuery, d: SqlDialect, indexed: IndexState): boolean {
  if (q.where == null || q.changed_after != null) return false;
  // a scratch parameter list: the check compiles nothing into the query
  return compilerFor(q, d, new SqlParams(d), indexed).narrowsByValueIndex(q.where);
}

function compilerFor(q: CallsQuery, d: SqlDialect, p: SqlParams, indexed: IndexState): CallsExprCompiler {
  return new CallsExprCompiler(d, p, { projectId: q.project_id, expand: q.expand, ...indexStates(indexed) });
}

function orderBy(q: CallsQuery, d: SqlDialect, p: SqlParams, indexed: IndexState, amongCandidates: boolean): string {
  if (q.changed_after) return 'c.change_seq ASC, c.id ASC';
  // a few ids read through call_values, the substring index or a walk of call_latency or
  // call_status are sorted, not found by walking an index in sort order
  const terms = orderTerms(q, d, p, indexed);
  const few = amongCandidates || narrowsById(q, d, indexed);
  return (few ? terms.map((term) => d.unindexed(term)) : terms).join(', ');
}

function orderTerms(q: CallsQuery, d: SqlDialect, p: SqlParams, indexed: IndexState): string[] {
  const sortBy = q.sort_by;
  if (sortBy == null) return ['c.started_at ASC', 'c.id ASC'];
  if (sortBy.length === 0) return [d.insertionOrder];
  const compiler = compilerFor(q, d, p, indexed);
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
 * SELECT for `/calls/stream_query` and friends. `indexed`: the project's call indexes (migration
 * 014) are complete, so the compiled query may read them (call-index-backfill.ts).
 */
export function compileCallsSelect(q: CallsQuery, d: SqlDialect, indexed: IndexState = false): CompiledSql {
  const byLatency = latencySortIds(q, d, indexed);
  const byStatus = byLatency === null ? statusIds(q, d, indexed) : null;
  const byName = byLatency === null && byStatus === null ? nameSortIds(q, d, indexed) : null;
  const byTokens =
    byLatency === null && byStatus === null && byName === null
      ? (tokensIds(q, d, indexed) ?? costIds(q, d, indexed))
      : null;
  const walked = byStatus ?? byName;
  const candidates: Candidates | null =
    byLatency !== null
      ? { ids: byLatency, driving: false }
      : walked !== null
        ? { ids: walked, driving: true }
        : byTokens && { ids: byTokens, driving: false };
  if (candidates !== null) {
    // the filter is compiled several times there: one too large for that keeps the plain query
    // (a budget passed while compiling throws; the plain query then throws whatever it must itself)
    const compiled = withinSqlBudget(() => compileSelect(q, d, indexed, candidates));
    if (compiled !== null) return compiled;
  }
  const compiled = compileSelect(q, d, indexed, null);
  checkSqlBudget(compiled.sql.length, compiled.params.length);
  return compiled;
}

/**
 * The candidate ids of a page (a SQL query of `id`s over calls of the project). `driving`: the
 * query reads the calls by joining the (deduplicated) ids, so that no index of `calls` a filter
 * could use (`calls_by_op` for an op filter, `calls_by_start` for a time range) competes with
 * looking them up; otherwise `c.id IN (…)`.
 */
interface Candidates {
  ids: (p: SqlParams) => string;
  driving: boolean;
}

/** The SELECT, its rows among the `candidates` when given. */
function compileSelect(q: CallsQuery, d: SqlDialect, indexed: IndexState, candidates: Candidates | null): CompiledSql {
  const p = new SqlParams(d);
  const select = selectList(q, d, p);
  let from = 'calls c';
  if (candidates?.driving === true) from = `(SELECT DISTINCT u.id FROM (${candidates.ids(p)}) u) k CROSS JOIN calls c`;
  let where = callsWhere(q, d, p, indexed, candidates !== null);
  if (candidates?.driving === true) where += ' AND c.id = k.id';
  if (candidates?.driving === false) where += ` AND c.id IN (${candidates.ids(p)})`;
  const order = orderBy(q, d, p, indexed, candidates !== null);
  const limit = d.limitOffset(q.limit ? q.limit : null, q.offset ? q.offset : null, p);
  return { sql: `SELECT ${select} FROM ${from} WHERE ${where} ORDER BY ${order} ${limit}`, params: p.values };
}

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
 * the call indexer once the project's fill is done (call-entry-fills.ts; until then every call is a
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
function latencySortIds(q: CallsQuery, d: SqlDialect, indexed: IndexState): ((p: SqlParams) => string) | null {
  const { backfilled, filled } = indexStates(indexed);
  const sortBy = q.sort_by;
  if (!backfilled || !filled(FILL_NAMES.latency)) return null;
  if (!q.limit || q.changed_after || sortBy == null || sortBy.length === 0) return null;
  const [first, ...rest] = sortBy;
  if (first!.field.kind !== 'derived' || first!.field.name !== 'latency_ms') return null;
  if (rest.length > 1 || rest.some((key) => key.field.kind !== 'column' || key.field.name !== 'id')) return null;
  if (narrowsById(q, d, indexed) || narrowsByList(q.filter)) return null;
  const dir = first!.direction === 'asc' ? 'ASC' : 'DESC';
  // the tie-break orderTerms adds: id descending unless the sort names it
  const idDir = rest[0]?.direction === 'asc' ? 'ASC' : 'DESC';
  const n = (q.limit ?? 0) + (q.offset ?? 0);
  const { table, fill } = entriesFor(LATENCY_ENTRIES, q.filter?.trace_roots_only === true, filled);
  return (p) => {
    const project = p.add(q.project_id);
    const entries = (key: string, matches: string, order: string): string =>
      `SELECT id FROM (SELECT l.id FROM ${table} l CROSS JOIN calls c
        WHERE l.project_id = ${project} AND ${key} AND c.project_id = l.project_id AND c.id = l.id AND ${matches}
          AND ${callsWhere(q, d, p, indexed)}
        ORDER BY ${order} ${d.limitOffset(n, null, p)}) e`;
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
}

/** The status entries a query's walk reads (calls-status.ts `STATUS_ENTRIES`). */
const statusEntries = (q: CallsQuery, indexed: IndexState): WalkEntries =>
  entriesFor(STATUS_ENTRIES, q.filter?.trace_roots_only === true, indexStates(indexed).filled);

/**
 * A query filtered by `summary.weave.status` and sorted by start, or sorted by status (calls-status.ts
 * `statusWalk` names the shapes), with a limit, on a project the call indexer covers: the candidates
 * of its page along `call_status` (migration 020) and the calls after the project's mark
 * (calls-status.ts `statusCandidates`; docs/query-performance.md "The status filter and sort off the
 * commit path"). The query then filters and orders them exactly as the plain query orders all calls,
 * so the page is the same. Null where the plain query keeps its plan: as for the latency sort, where
 * an equality, a `$contains` or a list of ids already narrows the query to a few calls.
 */
function statusIds(q: CallsQuery, d: SqlDialect, indexed: IndexState): ((p: SqlParams) => string) | null {
  if (!indexStates(indexed).filled(FILL_NAMES.status) || !q.limit || q.changed_after) return null;
  const walk = statusWalk(q);
  if (walk === null || narrowsById(q, d, indexed) || narrowsByList(q.filter)) return null;
  const n = (q.limit ?? 0) + (q.offset ?? 0);
  const entries = statusEntries(q, indexed);
  return (p) => statusCandidates(walk, q, n, (wp) => callsWhere(q, d, wp, indexed), d, p, entries);
}

/** The token sort's candidates along `call_tokens` (calls-tokens-sort.ts), or null. */
function tokensIds(q: CallsQuery, d: SqlDialect, indexed: IndexState): ((p: SqlParams) => string) | null {
  const { filled } = indexStates(indexed);
  const readable = filled(FILL_NAMES.tokens);
  const narrowed = readable && (narrowsById(q, d, indexed) || narrowsByList(q.filter));
  const where = (p: SqlParams): string => callsWhere(q, d, p, indexed);
  return tokensSortIds(q, d, readable, narrowed, where, filled(FILL_NAMES.tokenRoots));
}

/** The cost sort's candidates along `call_cost` (calls-tokens-sort.ts `costSortIds`), or null. */
function costIds(q: CallsQuery, d: SqlDialect, indexed: IndexState): ((p: SqlParams) => string) | null {
  const { costed } = indexStates(indexed);
  const narrowed = costed && (narrowsById(q, d, indexed) || narrowsByList(q.filter));
  return costSortIds(q, d, costed, narrowed, (p) => callsWhere(q, d, p, indexed));
}

/**
/** The candidates of a sort by a name along its entries (`nameIds`), or null. */
function nameSortIds(q: CallsQuery, d: SqlDialect, indexed: IndexState): ((p: SqlParams) => string) | null {
  const { filled } = indexStates(indexed);
  return (
    nameIds(DISPLAY_NAMES, filled(FILL_NAMES.display), q, d, indexed) ??
    nameIds(TRACE_NAMES, filled(FILL_NAMES.traceNames), q, d, indexed) ??
    // an op filter is read along calls_by_op, which the walk of every op's entries would not narrow
    (q.filter?.op_names?.length ? null : nameIds(OP_NAMES, filled(FILL_NAMES.opNames), q, d, indexed))
  );
}

/**
 * A sort by `display_name`, `summary.weave.trace_name` or `op_name` (alone or then `id`), with a
 * limit, on a project whose entries of that name are filled (`readable`): the candidates of its page
 * along `call_display` (migration 021), `call_trace_names` (migration 026) or `call_op_names`
 * (migration 029) and the calls after the project's mark (calls-display.ts `nameCandidates`;
 * docs/query-performance.md "The display-name sort off the commit path", "The trace-name sort off the
 * commit path", "The op-name sort"). The query then filters and orders them exactly as the plain
 * query orders all calls. Null where the plain query keeps its plan, as for the latency and status walks.
 */
function nameIds(
  entries: NameEntries,
  readable: boolean,
  q: CallsQuery,
  d: SqlDialect,
  indexed: IndexState,
): ((p: SqlParams) => string) | null {
  if (!readable || !q.limit || q.changed_after) return null;
  const walk = nameWalk(entries, q);
  if (walk === null || narrowsById(q, d, indexed) || narrowsByList(q.filter)) return null;
  const n = (q.limit ?? 0) + (q.offset ?? 0);
  const rootsOnly = q.filter?.trace_roots_only === true;
  return (p) => nameCandidates(entries, walk, q.project_id, rootsOnly, n, (wp) => callsWhere(q, d, wp, indexed), d, p);
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
  if (indexStates(indexed).backfilled && countsAllCalls(q, d)) {
    // the per-hour counters that triggers on `calls` keep (migration 016): no scan of the calls
    const sum = `(SELECT CAST(COALESCE(SUM(k.calls), 0) AS BIGINT) FROM call_counts k WHERE k.project_id = ${p.add(q.project_id)})`;
    const count = q.limit ? `CASE WHEN n > ${p.add(q.limit + 1)} THEN ${p.add(q.limit + 1)} ELSE n END` : 'n';
    return {
      sql: `SELECT ${count} AS count, NULL AS total_storage_size_bytes FROM (SELECT ${sum} AS n) s`,
      params: p.values,
    };
  }
  const byStatus = statusCount(q, d, indexed);
  if (byStatus !== null) return byStatus;
  const where = callsWhere(q, d, p, indexed);
  const total = q.include_total_storage_size ? `, ${totalStorageSize(d, p.add(q.project_id))} AS total` : '';
  const limit = q.limit ? d.limitOffset(q.limit + 1, null, p) : '';
  const inner = `SELECT 1 AS one${total} FROM calls c WHERE ${where} ${limit}`;
  const sumTotal = q.include_total_storage_size ? 'COALESCE(SUM(total), 0)' : 'NULL';
  const sql = `SELECT COUNT(*) AS count, ${sumTotal} AS total_storage_size_bytes FROM (${inner}) matched`;
  checkSqlBudget(sql.length, p.values.length);
  return { sql, params: p.values };
}

/**
 * A count with a limit (the UI's is capped) of a query with a status test (calls-status.ts
 * `statusesOf`), on a project the call indexer covers: the matches among the first `limit + 1`
 * current matching entries of each status (any order) and the calls after the mark, counted up to
 * `limit + 1`. Exact: where a status has `limit + 1` such entries the cap is reached, otherwise
 * every match is a candidate. Null where the scan stays (no limit, storage sums, the shapes
 * `statusIds` leaves to the plain plan, or past the SQL budget).
 */
function statusCount(q: CallsQuery, d: SqlDialect, indexed: IndexState): CompiledSql | null {
  if (!indexStates(indexed).filled(FILL_NAMES.status) || !q.limit || q.changed_after || q.include_total_storage_size)
    return null;
  const statuses = q.where ? statusesOf(q.where) : null;
  if (statuses === null || narrowsById(q, d, indexed) || narrowsByList(q.filter)) return null;
  const cap = q.limit + 1;
  return withinSqlBudget(() => {
    const p = new SqlParams(d);
    const walk = { statuses, by: null, startDir: 'ASC', idDir: 'ASC' } as const;
    const where = (wp: SqlParams): string => callsWhere(q, d, wp, indexed);
    // the entries' calls are tested once, in the walk; only the tail's are looked up here
    const tail = (ids: string): string => `SELECT c.id FROM (${ids}) t CROSS JOIN calls c
      WHERE ${callsWhere(q, d, p, indexed, true)} AND c.id = t.id`;
    const ids = statusCandidates(walk, q, cap, where, d, p, statusEntries(q, indexed), tail);
    const inner = `SELECT DISTINCT u.id FROM (${ids}) u ${d.limitOffset(cap, null, p)}`;
    return {
      sql: `SELECT COUNT(*) AS count, NULL AS total_storage_size_bytes FROM (${inner}) matched`,
      params: p.values,
    };
  });
}
