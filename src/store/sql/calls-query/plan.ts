import { REF_PREFIX } from '../../../domain/refs.js';
import type { CallsFilter, CallsQuery } from '../../types.js';
import { SqlParams, SqlPiece, type SqlDialect } from '../core/sql-dialect.js';
import { indexStates, type IndexState, type IndexStates, type PlannedQuery } from './access-path.js';
import { CallsExprCompiler } from './expr.js';

/**
 * What a calls query's plan knows once: the indexes the project may read, whether an index already
 * narrows the query to a few calls, and its WHERE clause, compiled once and spliced into the page's
 * statement and into the candidate walk of an access path (select.ts `ACCESS_PATHS`).
 */

export type { IndexState } from './access-path.js';

/** The filter's conditions over the call `c`. */
export function filterConditions(filter: CallsFilter, d: SqlDialect, p: SqlParams): string[] {
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

/** Whether the filter names the traces, parents, calls, threads or turns to read (each has its index). */
function narrowsByList(filter: CallsFilter | null | undefined): boolean {
  if (filter == null) return false;
  const lists = [filter.trace_ids, filter.parent_ids, filter.call_ids, filter.thread_ids, filter.turn_ids];
  return lists.some((list) => list != null && list.length > 0);
}

/** A calls query with what its access paths and its statement need to know about it, each worked out once. */
export class QueryPlan implements PlannedQuery {
  readonly states: IndexStates;
  /** The expression narrows the query to a few ids through `call_values` or the substring index. */
  readonly narrowsById: boolean;
  /** That, or a list of traces, parents, calls, threads or turns: found by their index, then sorted. */
  readonly narrowed: boolean;
  /** The rows a page reads: `limit + offset` (0 without a limit). */
  readonly rows: number;
  readonly #narrowsByTextOnly: boolean;
  #where: SqlPiece | undefined;
  #whereAmongCandidates: SqlPiece | undefined;

  constructor(
    readonly q: CallsQuery,
    readonly d: SqlDialect,
    readonly indexed: IndexState,
  ) {
    this.states = indexStates(indexed);
    // a scratch parameter list: the checks compile nothing into the query
    const scratch = this.compiler(new SqlParams(d));
    this.narrowsById = q.where != null && q.changed_after == null && scratch.narrowsByValueIndex(q.where);
    this.#narrowsByTextOnly = this.narrowsById && scratch.narrowsByTextIndexOnly(q.where!);
    this.narrowed = this.narrowsById || narrowsByList(q.filter);
    this.rows = (q.limit ?? 0) + (q.offset ?? 0);
  }

  /** The expression compiler for this query, binding with `p`. */
  compiler(p: SqlParams): CallsExprCompiler {
    const { q, d, states } = this;
    return new CallsExprCompiler(d, p, { projectId: q.project_id, expand: q.expand, ...states });
  }

  /** The WHERE clause (project scope, visibility, filter, expression, time range), bound with `p`. */
  where(p: SqlParams): string {
    this.#where ??= SqlPiece.build((wp) => this.#compileWhere(wp, false), 'w');
    return this.#where.emit(p);
  }

  /**
   * The same for a query that reads a few candidate ids (the walks of an access path): no condition
   * on the start may lead SQLite's planner to walk `calls_by_start` instead of looking them up.
   */
  whereAmongCandidates(p: SqlParams): string {
    this.#whereAmongCandidates ??= SqlPiece.build((wp) => this.#compileWhere(wp, true), 'v');
    return this.#whereAmongCandidates.emit(p);
  }

  #compileWhere(p: SqlParams, amongCandidates: boolean): string {
    const { q, d } = this;
    const start = this.narrowsById || amongCandidates ? d.unindexed('c.started_at') : 'c.started_at';
    // the visible rows of the project: started, not deleted
    const visible = `${start} IS NOT NULL AND c.deleted_at IS NULL`;
    const project = this.#narrowsByTextOnly ? d.unindexed('c.project_id') : 'c.project_id';
    const conditions = [`${project} = ${p.add(q.project_id)}`, visible];
    if (q.filter) conditions.push(...filterConditions(q.filter, d, p));
    if (q.where) conditions.push(this.compiler(p).condition(q.where));
    if (q.started_from != null) conditions.push(`${start} >= ${p.add(q.started_from)}`);
    if (q.started_before != null) conditions.push(`${start} < ${p.add(q.started_before)}`);
    if (q.changed_after) {
      const { seq, id } = q.changed_after;
      conditions.push(`(c.change_seq, c.id) > (${p.add(seq)}, ${p.add(id)})`);
      if (d.changeHorizon && q.include_uncertain_changes !== true) conditions.push(`c.change_seq < ${d.changeHorizon}`);
    }
    return conditions.join(' AND ');
  }
}
