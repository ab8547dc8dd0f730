import type { CallTextStep } from '../call-text-types.js';
import { insertNamesSql, TRACE_NAMES } from './calls-display.js';
import { statementWhere } from './call-index-backfill.js';
import type { CompiledSql } from './calls-select.js';
import { frag, type SqlTag } from './sql-tag.js';
import { all, run, runAll, type Tx } from './sql-tx.js';

/**
 * The background fill of the trace-name entries (migration 025; docs/query-performance.md "The
 * trace-name sort off the commit path"). The call indexer writes the `call_trace_names` entries of
 * the calls it indexes (call-text-index.ts); the calls it had indexed before migration 025 have
 * none. So for each project it covers, the fill writes the entry of every call of the project in id
 * order, `maxCalls` a step, beside the indexer's steps, as the cost entries' rebuild does
 * (call-cost-entries.ts `costStep`), and marks the project done (`filled_after` NULL).
 *
 * Why every call at or below the mark then has an entry: it was either indexed after migration 025
 * (the indexer wrote it) or indexed before, so it existed before the project's fill row was created
 * and when the fill passed its id. An entry written for a call renamed since is stale (the call is
 * after the mark, or its newer entry is written): queries skip it by comparing with the call's name.
 * A project the indexer first reaches after migration 025 needs no fill (`traceNamesFilled`).
 *
 * Like the cost rebuild, the fill follows ids: calls written meanwhile with higher ids (time-ordered
 * ids, as the clients make) are read too, so under sustained ingest it ends when it catches up.
 */

/**
 * Marks the project's fill complete: the indexer does so when it creates the project's mark (a new
 * project, or one whose mark an import removed), since it then indexes, and writes the entry of,
 * every call the mark will cover. So only projects indexed before migration 025 are filled in.
 */
export function traceNamesFilled(sql: SqlTag, project: string): CompiledSql {
  return sql`INSERT INTO call_trace_name_fills (project_id, filled_after) VALUES (${project}, NULL)
    ON CONFLICT (project_id) DO UPDATE SET filled_after = NULL`;
}

/** What the fill step found for a project. */
interface FillWork {
  project_id: string;
  /** The project's fill row, or null when it has none yet. */
  begun: string | null;
  filled_after: string | null;
}

/**
 * The next project the indexer covers whose fill is not complete (no row yet, or a row not done),
 * taking projects in turn after `after`.
 */
function fillWork(sql: SqlTag, after: string): CompiledSql {
  return sql`SELECT m.project_id, f.project_id AS begun, f.filled_after
    FROM call_text_marks m LEFT JOIN call_trace_name_fills f ON f.project_id = m.project_id
    WHERE m.nulls_done = 1 AND (f.project_id IS NULL OR f.filled_after IS NOT NULL)
    ORDER BY CASE WHEN m.project_id > ${after} THEN 0 ELSE 1 END, m.project_id LIMIT 1`;
}

/** Whether any project's fill has work left (a read, so an idle store writes nothing). */
export function traceNameFillWaiting(sql: SqlTag): CompiledSql {
  return fillWork(sql, '');
}

/**
 * One step of the fill, inside the indexer's transaction: for one project, create its fill row, or
 * write the entries of its next `maxCalls` calls in id order and move `filled_after` past them (NULL
 * once the last is written). `after`: the project of the previous fill step. `calls` counts the calls
 * whose entries were written.
 */
export function* traceNameFillStep(
  sql: SqlTag,
  maxCalls: number,
  after: string,
): Tx<CallTextStep & { traceNames: true }> {
  const [work] = yield* all<FillWork>(fillWork(sql, after));
  if (work === undefined) return { calls: 0, project: null, traceNames: true };
  const project = work.project_id;
  if (work.begun === null) {
    yield* run(sql`INSERT INTO call_trace_name_fills (project_id, filled_after) VALUES (${project}, '')`);
    return { calls: 0, project, traceNames: true };
  }
  const from = work.filled_after!;
  const ids = yield* all<{ id: string }>(
    sql`SELECT t.id FROM calls t WHERE t.project_id = ${project} AND t.id > ${from} ORDER BY t.id LIMIT ${maxCalls}`,
  );
  const last = ids.at(-1)?.id;
  const statements: CompiledSql[] = [];
  if (last !== undefined)
    statements.push(
      statementWhere(
        sql,
        (w) => insertNamesSql(TRACE_NAMES, 'calls c', w),
        frag`c.project_id = ${project} AND c.id > ${from} AND c.id <= ${last}`,
      ),
    );
  statements.push(sql`UPDATE call_trace_name_fills SET filled_after = ${ids.length < maxCalls ? null : last!}
    WHERE project_id = ${project}`);
  yield* runAll(statements);
  return { calls: ids.length, project, traceNames: true };
}
