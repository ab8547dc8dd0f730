import type { CallTextStep } from '../../call-text-types.js';
import { type CompiledSql, frag, raw, type Fragment, type SqlTag } from '../core/sql-tag.js';
import { AT_OR_BELOW_MARK, FILL_NAMES, type FillName } from '../calls-query/coverage.js';
import { insertLatencySql } from '../calls-query/latency.js';
import { insertStatusSql } from '../calls-query/status.js';
import { insertTokensSql } from '../calls-query/tokens.js';
import { insertDisplaySql, insertNamesSql, OP_NAMES, TRACE_NAMES } from '../calls-query/names.js';
import { statementWhere } from './backfill.js';
import type { TextIndexDialect } from './text-dialects.js';
import { all, run, runAll, type Tx } from '../core/sql-tx.js';

/**
 * The entries the call indexer writes beside its substring index and `call_values`, each filled in
 * the background for the calls the indexer had passed when a migration added them (migration 025,
 * `call_entry_fills`; migration 027 for the entries of 019–022, which filled them inside the upgrade
 * before; the roots' latency entries of 028, the op-name entries of 029, the roots' status entries
 * of 030; the `call_values` leaves of `output` and `attributes`, which need no migration: a project
 * without a fill row gets its fill). The indexer writes the entries of every call it indexes from the migration on; the calls
 * it had passed before get theirs here, a project at a time in id order over all its calls
 * (`filled_after`: the last id filled, NULL once done; no row: not begun), so an upgrade neither
 * blocks on a fill nor leaves a walk without entries: a query walks the entries of a project only
 * once its fill is done (`entriesFilled`), and otherwise keeps the plan it had.
 */
export interface EntryFill {
  /** The name in `call_entry_fills.entries`. */
  name: FillName;
  /** The entries of the calls `c` matching `where` (those of them it holds entries for), the indexer's statement too. */
  write(sql: SqlTag, t: TextIndexDialect, where: Fragment): CompiledSql;
}

/** `call_latency` (migration 019): the latency sort's entries of every call (calls-query/latency.ts). */
export const LATENCY_ENTRIES: EntryFill = {
  name: FILL_NAMES.latency,
  write: (sql, _t, where) => statementWhere(sql, (w) => insertLatencySql('calls c', w), where),
};

/** `call_latency_roots` (migration 028): the latency entries of trace roots. */
export const LATENCY_ROOT_ENTRIES: EntryFill = {
  name: FILL_NAMES.latencyRoots,
  write: (sql, _t, where) =>
    statementWhere(
      sql,
      (w) => insertLatencySql('calls c', w, 'call_latency_roots'),
      frag`(${where}) AND c.parent_id IS NULL`,
    ),
};

/** `call_status` (migration 020): the status filter's and sort's entries of every started call (calls-query/status.ts). */
export const STATUS_ENTRIES: EntryFill = {
  name: FILL_NAMES.status,
  write: (sql, { d }, where) => statementWhere(sql, (w) => insertStatusSql(d.derivedStatus, 'calls c', w), where),
};

/** `call_status_roots` (migration 030): the status entries of started trace roots. */
export const STATUS_ROOT_ENTRIES: EntryFill = {
  name: FILL_NAMES.statusRoots,
  write: (sql, { d }, where) =>
    statementWhere(
      sql,
      (w) => insertStatusSql(d.derivedStatus, 'calls c', w, 'call_status_roots'),
      frag`(${where}) AND c.parent_id IS NULL`,
    ),
};

/** `call_display` (migration 021): the display-name sort's entries of every call (calls-query/names.ts). */
export const DISPLAY_ENTRIES: EntryFill = {
  name: FILL_NAMES.display,
  write: (sql, _t, where) => statementWhere(sql, (w) => insertDisplaySql('calls c', w), where),
};

/** `call_tokens` (migration 022): the token sort's entries of every call (calls-query/tokens.ts). */
export const TOKEN_TOTAL_ENTRIES: EntryFill = {
  name: FILL_NAMES.tokens,
  write: (sql, { d }, where) => statementWhere(sql, (w) => insertTokensSql(d.derivedTokens, 'calls c', w), where),
};

/** `call_token_roots` (migration 025): the token entries of trace roots. */
export const TOKEN_ROOTS: EntryFill = {
  name: FILL_NAMES.tokenRoots,
  write: (sql, { d }, where) =>
    statementWhere(
      sql,
      (w) => insertTokensSql(d.derivedTokens, 'calls c', w, 'call_token_roots'),
      frag`(${where}) AND c.parent_id IS NULL`,
    ),
};

/** `call_trace_names` (migration 026): the trace-name sort's entries of every call (calls-query/names.ts). */
export const TRACE_NAME_ENTRIES: EntryFill = {
  name: FILL_NAMES.traceNames,
  write: (sql, _t, where) => statementWhere(sql, (w) => insertNamesSql(TRACE_NAMES, 'calls c', w), where),
};

/** `call_op_names` (migration 029): the op-name sort's entries of every call (calls-query/names.ts). */
export const OP_NAME_ENTRIES: EntryFill = {
  name: FILL_NAMES.opNames,
  write: (sql, _t, where) => statementWhere(sql, (w) => insertNamesSql(OP_NAMES, 'calls c', w), where),
};

/**
 * `call_values` of `output`: the string leaves of equalities on output fields (calls-query/expr-values.ts).
 * The leaves of `inputs` are not a fill: the indexer has written them since migration 018.
 */
export const OUTPUT_VALUE_ENTRIES: EntryFill = {
  name: FILL_NAMES.outputValues,
  write: (sql, t, where) => statementWhere(sql, (w) => t.insertValues(w, 'output'), where),
};

/** `call_values` of `attributes`: the string leaves of equalities on attribute fields. */
export const ATTRIBUTE_VALUE_ENTRIES: EntryFill = {
  name: FILL_NAMES.attributeValues,
  write: (sql, t, where) => statementWhere(sql, (w) => t.insertValues(w, 'attributes'), where),
};

/** Every fill, in the order the indexer takes them. */
export const ENTRY_FILLS: readonly EntryFill[] = [
  LATENCY_ENTRIES,
  STATUS_ENTRIES,
  DISPLAY_ENTRIES,
  TOKEN_TOTAL_ENTRIES,
  TOKEN_ROOTS,
  TRACE_NAME_ENTRIES,
  LATENCY_ROOT_ENTRIES,
  OP_NAME_ENTRIES,
  STATUS_ROOT_ENTRIES,
  OUTPUT_VALUE_ENTRIES,
  ATTRIBUTE_VALUE_ENTRIES,
];

/** The indexer's statements for the calls `c` matching `where`: the entries of every fill. */
export function indexedFillEntries(sql: SqlTag, t: TextIndexDialect, where: Fragment): CompiledSql[] {
  return ENTRY_FILLS.map((fill) => fill.write(sql, t, where));
}

/** The next ids of a pass over a project's calls in id order, and the pass's bound (`passIds`). */
export interface PassChunk {
  ids: string[];
  until: string;
}

/**
 * The next `maxCalls` ids after `from`, up to the pass's bound `until`, of a pass over a project's
 * calls (a fill here, a cost generation in call-indexes/cost-entries.ts). The first step sets the bound (NULL
 * before it) to the project's highest id then: it runs under the indexer's lock, after every indexer
 * step that began before the pass did, and any call created later is after the indexer's mark and
 * gets its entries from the indexer. So a pass ends under sustained ingest too, instead of chasing the
 * new ids.
 */
export function* passIds(
  sql: SqlTag,
  project: string,
  from: string,
  until: string | null,
  maxCalls: number,
): Tx<PassChunk> {
  let bound = until;
  if (bound === null) {
    const [top] = yield* all<{ m: string | null }>(
      sql`SELECT MAX(t.id) AS m FROM calls t WHERE t.project_id = ${project}`,
    );
    bound = top?.m ?? '';
  }
  const rows = yield* all<{ id: string }>(
    sql`SELECT t.id FROM calls t WHERE t.project_id = ${project} AND t.id > ${from} AND t.id <= ${bound}
      ORDER BY t.id LIMIT ${maxCalls}`,
  );
  return { ids: rows.map((r) => r.id), until: bound };
}

interface FillWork {
  project_id: string;
  entries: string;
  filled_after: string | null;
  fill_until: string | null;
  known: number | null;
}

/** The first project (after `after`, then from the start) and fill with work left, if any. */
function fillWork(sql: SqlTag, after: string): CompiledSql {
  // the names are this file's constants (letters and underscores): literals
  const kinds = raw(
    ENTRY_FILLS.map((fill, i) => `SELECT '${fill.name}'${i === 0 ? ' AS entries' : ''}`).join(' UNION ALL '),
  );
  return sql`SELECT m.project_id, k.entries, f.filled_after, f.fill_until, CASE WHEN f.project_id IS NULL THEN NULL ELSE 1 END AS known
    FROM call_text_marks m CROSS JOIN (${kinds}) k
    LEFT JOIN call_entry_fills f ON f.project_id = m.project_id AND f.entries = k.entries
    WHERE m.nulls_done = 1 AND (f.project_id IS NULL OR f.filled_after IS NOT NULL)
    ORDER BY CASE WHEN m.project_id > ${after} THEN 0 ELSE 1 END, m.project_id, k.entries LIMIT 1`;
}

/** Every fill of a project whose mark the indexer starts (it writes those entries itself): done. */
export function filledFromStart(sql: SqlTag, project: string): CompiledSql[] {
  return ENTRY_FILLS.map(
    (
      fill,
    ) => sql`INSERT INTO call_entry_fills (project_id, entries, filled_after) VALUES (${project}, ${fill.name}, NULL)
      ON CONFLICT (project_id, entries) DO NOTHING`,
  );
}

/** Whether any fill has work left (a read, so an idle store writes nothing). */
export const fillWorkWaiting = (sql: SqlTag): CompiledSql => fillWork(sql, '');

/**
 * One step of the fills, inside the indexer's transaction: records a covered project's fill, or
 * writes the entries of its next `maxCalls` calls in id order. `after`: the project of the previous
 * fill step, so every project takes its turn.
 */
export function* fillStep(sql: SqlTag, t: TextIndexDialect, maxCalls: number, after: string): Tx<CallTextStep> {
  const [work] = yield* all<FillWork>(fillWork(sql, after));
  if (work === undefined) return { calls: 0, project: null };
  const project = work.project_id;
  const fill = ENTRY_FILLS.find((f) => f.name === work.entries)!;
  if (work.known === null) {
    yield* run(
      sql`INSERT INTO call_entry_fills (project_id, entries, filled_after) VALUES (${project}, ${fill.name}, '')`,
    );
    return { calls: 0, project, kind: 'fill' };
  }
  const from = work.filled_after!;
  const { ids, until } = yield* passIds(sql, project, from, work.fill_until, maxCalls);
  const last = ids.at(-1);
  const statements: CompiledSql[] = [];
  if (last !== undefined)
    statements.push(
      fill.write(
        sql,
        t,
        frag`c.project_id = ${project} AND c.id > ${from} AND c.id <= ${last} AND ${raw(AT_OR_BELOW_MARK)}`,
      ),
    );
  statements.push(sql`UPDATE call_entry_fills SET filled_after = ${ids.length < maxCalls ? null : last!},
    fill_until = ${until} WHERE project_id = ${project} AND entries = ${fill.name}`);
  yield* runAll(statements);
  return { calls: ids.length, project, kind: 'fill' };
}
