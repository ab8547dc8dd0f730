import type { CallsQuery } from '../../types.js';
import type { SqlDialect, SqlParams } from '../core/sql-dialect.js';
import type { FillName } from './coverage.js';

/**
 * What an access path of the planner (select.ts `ACCESS_PATHS`) is given and answers: the query's
 * plan (plan.ts `QueryPlan`) and the candidate ids of its page.
 */

/**
 * Which indexes a project's query may read: `backfilled`, the counters and latency column of
 * migration 016 once its backfill is through the project (call-indexes/backfill.ts); `covered`, the
 * indexes the call indexer fills, `call_values`, the substring index and `call_latency`
 * (call-indexes/text-index.ts `covers`; expr-values.ts, text.ts, latency.ts); `costed`, the cost
 * entries of migration 024 complete at the project's prices (`costCovers`); `pending`, the fills of
 * the indexer's entries not done yet (call-indexes/entry-fills.ts, `pendingFills`; none when
 * absent). A boolean stands for all of them (`true`: every index readable, every fill done).
 */
export type IndexState =
  boolean | { backfilled: boolean; covered: boolean; costed?: boolean; pending?: readonly string[] };

export interface IndexStates {
  backfilled: boolean;
  covered: boolean;
  costed: boolean;
  /** Whether the entries of the fill `name` are readable: the indexer covers the project and the fill is done. */
  filled(name: FillName): boolean;
}

export const indexStates = (indexed: IndexState): IndexStates =>
  typeof indexed === 'boolean'
    ? { backfilled: indexed, covered: indexed, costed: indexed, filled: () => indexed }
    : {
        backfilled: indexed.backfilled,
        covered: indexed.covered,
        costed: indexed.costed === true && indexed.covered,
        filled: (name) => indexed.covered && !(indexed.pending ?? []).includes(name),
      };

/**
 * The candidate ids of a page (a SQL query of `id`s over calls of the project). `driving`: the
 * query reads the calls by joining the (deduplicated) ids, so that no index of `calls` a filter
 * could use (`calls_by_op` for an op filter, `calls_by_start` for a time range) competes with
 * looking them up; otherwise `c.id IN (…)`.
 */
export interface Candidates {
  ids: (p: SqlParams) => string;
  driving: boolean;
}

/**
 * One way to a page other than reading `calls` in the page's order: a side table of the call
 * indexer walked in order, plus the calls after the project's mark. `candidates` is null where the
 * plain query keeps its plan (the index is not readable, or the query is not of its shape).
 */
export interface AccessPath {
  readonly name: string;
  candidates(plan: PlannedQuery): Candidates | null;
}

/** A calls query with what its access paths need to know about it (plan.ts `QueryPlan`). */
export interface PlannedQuery {
  readonly q: CallsQuery;
  readonly d: SqlDialect;
  readonly states: IndexStates;
  /** The expression narrows the query to a few ids through `call_values` or the substring index. */
  readonly narrowsById: boolean;
  /** That, or a list of traces, parents, calls, threads or turns: found by their index, then sorted. */
  readonly narrowed: boolean;
  /** The rows a page reads: `limit + offset` (0 without a limit). */
  readonly rows: number;
  /** The WHERE clause (project scope, visibility, filter, expression, time range), bound with `p`. */
  where(p: SqlParams): string;
  /** The same for a statement that reads a few candidate ids (no index of the start may compete). */
  whereAmongCandidates(p: SqlParams): string;
}
