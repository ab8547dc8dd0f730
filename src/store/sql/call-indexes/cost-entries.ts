import type { CallTextStep } from '../../call-text-types.js';
import { defaultPricesStamp } from '../calls-query/cost.js';
import { type CompiledSql, emitted, frag, raw, type Fragment, type SqlTag } from '../core/sql-tag.js';
import { AT_OR_BELOW_MARK } from '../calls-query/coverage.js';
import type { SqlDialect } from '../core/sql-dialect.js';
import { all, run, runAll, type Tx } from '../core/sql-tx.js';
import { passIds } from './entry-fills.js';

/**
 * The entries of the cost sort (migration 024; docs/query-performance.md "The cost sort off the
 * commit path"). A call's cost depends on its usage and on its project's prices, which can change
 * after the call: so each project's entries belong to a generation (`call_cost_gens`), and a change of
 * the project's prices (cost-store.ts) or of the built-in ones (`defaultPricesStamp`) starts a new
 * generation, which the call indexer writes for every call of the project in id order
 * (`rebuilt_after`), beside the entries it writes for the calls it indexes. A query walks the
 * entries only of a complete generation priced with the built-in prices it runs with
 * (`currentCostGen`), and otherwise reads every call; older generations are deleted afterwards.
 *
 * Why the walk then finds every call: a call at or below its project's mark of the indexer was
 * either indexed after the generation began (the indexer wrote its entry at those prices), or
 * existed when the rebuild passed its id (the rebuild wrote it). On PostgreSQL an indexer statement
 * that began before a price change commits entries of the old generation, which the walk ignores.
 * Entries of calls whose usage changed since are stale, as with the token entries: the walk skips
 * them by comparing with the call's cost now.
 */

/**
 * `INSERT … SELECT` of the entries of the calls `c` in `from` matching `where`, of generation `gen`.
 * An entry written again (a call written again with the same cost) takes the call's root flag now: a
 * roots-only walk reads `call_cost_roots`, so a call that became a root needs its flag there.
 */
function insertCost(sql: SqlTag, d: SqlDialect, gen: unknown, from: Fragment, where: Fragment): CompiledSql {
  return sql`INSERT INTO call_cost (project_id, gen, is_null, cost, id, root)
    SELECT k.project_id, k.gen, CASE WHEN k.v IS NULL THEN 1 ELSE 0 END, COALESCE(k.v, 0), k.id, k.root
    FROM (SELECT c.project_id, c.id, ${gen} AS gen, ${emitted((p) => d.derivedCost(p))} AS v,
      CASE WHEN c.parent_id IS NULL THEN 1 ELSE 0 END AS root FROM ${from} WHERE ${where}) k
    WHERE 1 = 1 ON CONFLICT (project_id, gen, is_null, cost, id) DO UPDATE SET root = excluded.root`;
}

/**
 * The entries the call indexer writes for the calls `c` it indexes (call-indexes/text-index.ts), in the
 * project's current generation; none while the project has no generation (its first one, written by
 * `costStep`, covers them).
 */
export function insertIndexedCost(sql: SqlTag, d: SqlDialect, where: Fragment): CompiledSql {
  return insertCost(sql, d, raw('g.gen'), frag`calls c JOIN call_cost_gens g ON g.project_id = c.project_id`, where);
}

/**
 * A project's first generation, unless it has one: to be written from `rebuilt_after` ('' for every
 * call at or below the mark), or complete (NULL) where the indexer starts the project's mark and so
 * writes every call's entry itself. Numbered above any generation left behind (a project deleted
 * without its entries cannot have any, but an entry of a higher generation would be read as current).
 */
export function firstCostGen(sql: SqlTag, project: string, rebuiltAfter: string | null): CompiledSql {
  // INSERT … SELECT, not a subquery in VALUES: Citus refuses subqueries inside VALUES
  return sql`INSERT INTO call_cost_gens (project_id, gen, prices, rebuilt_after)
    SELECT ${project}, COALESCE(MAX(o.gen), 0) + 1, ${defaultPricesStamp()}, ${rebuiltAfter}
    FROM call_cost o WHERE o.project_id = ${project}
    ON CONFLICT (project_id) DO NOTHING`;
}

/** What the cost step found for a project. */
interface CostWork {
  project_id: string;
  gen: number | string | null;
  prices: string | null;
  rebuilt_after: string | null;
  rebuild_until: string | null;
}

/**
 * The projects the indexer covers whose entries need work: no generation yet, one priced with other
 * built-in prices, one not complete, or older generations left to delete. A project appears here only
 * once the indexer has a mark for it.
 */
function costWork(sql: SqlTag, stamp: string, after: string): CompiledSql {
  return sql`SELECT m.project_id, g.gen, g.prices, g.rebuilt_after, g.rebuild_until
    FROM call_text_marks m LEFT JOIN call_cost_gens g ON g.project_id = m.project_id
    WHERE m.nulls_done = 1 AND (g.project_id IS NULL OR g.prices <> ${stamp} OR g.rebuilt_after IS NOT NULL
      OR EXISTS (SELECT 1 FROM call_cost o WHERE o.project_id = m.project_id AND o.gen < g.gen))
    ORDER BY CASE WHEN m.project_id > ${after} THEN 0 ELSE 1 END, m.project_id LIMIT 1`;
}

/** Whether any project's entries need work (a read, so an idle store writes nothing). */
export function costWorkWaiting(sql: SqlTag): CompiledSql {
  return costWork(sql, defaultPricesStamp(), '');
}

/**
 * One step of the cost entries, inside the indexer's transaction: for one project, start its first or
 * next generation, write the next `maxCalls` calls of a generation being written, or delete up to
 * `maxCalls` entries of older generations. `after`: the project of the previous cost step, so every
 * project takes its turn. `calls` counts the entries written.
 */
export function* costStep(sql: SqlTag, d: SqlDialect, maxCalls: number, after: string): Tx<CallTextStep> {
  const stamp = defaultPricesStamp();
  const [work] = yield* all<CostWork>(costWork(sql, stamp, after));
  if (work === undefined) return { calls: 0, project: null, kind: 'cost' };
  const project = work.project_id;
  if (work.gen === null) {
    yield* run(firstCostGen(sql, project, ''));
    return { calls: 0, project, kind: 'cost' };
  }
  const gen = Number(work.gen);
  if (work.prices !== stamp) {
    yield* run(sql`UPDATE call_cost_gens SET gen = gen + 1, prices = ${stamp}, rebuilt_after = '',
      rebuild_until = NULL WHERE project_id = ${project}`);
    return { calls: 0, project, kind: 'cost' };
  }
  if (work.rebuilt_after !== null) {
    const from = work.rebuilt_after;
    const { ids, until } = yield* passIds(sql, project, from, work.rebuild_until, maxCalls);
    const last = ids.at(-1);
    const statements: CompiledSql[] = [];
    if (last !== undefined)
      statements.push(
        insertCost(
          sql,
          d,
          gen,
          frag`calls c`,
          frag`c.project_id = ${project} AND c.id > ${from} AND c.id <= ${last} AND ${raw(AT_OR_BELOW_MARK)}`,
        ),
      );
    // NULL once the last call is written; a price change meanwhile started another generation
    statements.push(sql`UPDATE call_cost_gens SET rebuilt_after = ${ids.length < maxCalls ? null : last!},
      rebuild_until = ${until} WHERE project_id = ${project} AND gen = ${gen}`);
    yield* runAll(statements);
    return { calls: ids.length, project, kind: 'cost' };
  }
  yield* run(sql`DELETE FROM call_cost WHERE project_id = ${project} AND gen < ${gen}
    AND (gen, is_null, cost, id) IN (SELECT o.gen, o.is_null, o.cost, o.id FROM call_cost o
      WHERE o.project_id = ${project} AND o.gen < ${gen} LIMIT ${maxCalls})`);
  return { calls: 0, project, kind: 'cost' };
}
