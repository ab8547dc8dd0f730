import type { CallField } from '../../../domain/call-fields.js';
import type { CallsQuery } from '../../types.js';
import { everyCallUntilFilled, FILL_NAMES, unindexedCalls, type FillName } from './coverage.js';
import type { AccessPath } from './access-path.js';
import type { SqlDialect, SqlParams } from '../core/sql-dialect.js';

/**
 * The name sorts off the commit path: the display name (migration 021, docs/query-performance.md
 * "The display-name sort off the commit path"), the trace name (migration 026, "The trace-name
 * sort off the commit path") and the op name (migration 029, "The op-name sort"). Each has a table `(project_id, kind, <key>, id)` that holds, for every
 * call at or below its project's mark of the call indexer, its name as it was when the indexer read
 * it, in one of three kinds:
 *
 * - `WHOLE` (0): a name of at most DISPLAY_KEY_CHARS characters, the key being the name itself;
 * - `CUT` (1): a longer name, keyed by its first DISPLAY_KEY_CHARS characters (a PostgreSQL B-tree
 *   entry holds at most about 2.7 KB, and a name is unbounded);
 * - `UNNAMED` (2): a NULL name, keyed by '' (key columns cannot be NULL).
 *
 * Both stores compare the names byte-wise (SQLite's BINARY, PostgreSQL's column collation "C" of
 * `display_name`, `op_display_name` and `op_name`, which the entries' key column has too), and a
 * character prefix is a byte prefix of the UTF-8 text: so a cut key that sorts before another (not
 * equal) belongs to a name that sorts before it too. Within one cut key the names are sorted by the
 * call's current name.
 */

/** The characters of a name kept in a key (at most 1 KB of UTF-8 with project and id, under PostgreSQL's B-tree limit). */
export const DISPLAY_KEY_CHARS = 256;

export const DISPLAY_WHOLE = 0;
export const DISPLAY_CUT = 1;
export const DISPLAY_UNNAMED = 2;

/**
 * `summary.weave.trace_name` of the call `c` (SQL, the same text on both stores): the display name
 * unless empty, else the op's display name, else the op name (calls-query/expr.ts compiles the field so).
 */
export const TRACE_NAME_SQL = `COALESCE(NULLIF(c.display_name, ''), c.op_display_name, c.op_name)`;

/** One name sort's entries: which table, which key column, which name of the call. */
export interface NameEntries {
  table: string;
  /** The key column (the name, cut to DISPLAY_KEY_CHARS characters, or '' for NULL). */
  key: string;
  /** The name of the call `c` (SQL). */
  name: string;
  /**
   * Whether the key starts with `root` (1 for a trace root, `parent_id IS NULL`, else 0) after the
   * project: a roots-only query then walks the roots' entries alone, where names that the children
   * carry would otherwise come first (a root op's name sorts apart from its children's).
   */
  rootKey: boolean;
  /** Whether a sort key sorts by this name. */
  sorts(field: CallField): boolean;
  /**
   * The ids of every call of the project `project` (a placeholder) while the entries cannot be read
   * (SQL): until the project's fill is done, a call at or below the mark may have no entry.
   */
  whenUnreadable(project: string): string;
}

/**
 * `call_display` (migration 021): the `display_name` column. Written by the indexer for the calls it
 * indexes, and by its fill (call-indexes/entry-fills.ts `DISPLAY_ENTRIES`) for those it had indexed before
 * the migration: until a project's fill is done, every call of the project is a candidate.
 */
export const DISPLAY_NAMES: NameEntries = {
  table: 'call_display',
  key: 'display_key',
  name: 'c.display_name',
  rootKey: false,
  sorts: (field) => field.kind === 'column' && field.name === 'display_name',
  whenUnreadable: (project) => everyCallUntilFilled(project, FILL_NAMES.display),
};

/**
 * `call_trace_names` (migration 026): `summary.weave.trace_name`. Migration 026 writes no entry: the
 * indexer writes those of the calls it indexes, and its fill those of the calls it had indexed before
 * (call-indexes/entry-fills.ts `TRACE_NAME_ENTRIES`). Until a project's fill is done a call at or below the
 * mark may have no entry, so every call of the
 * project is a candidate: the plain query's answer. The compiler's hint (call-indexes/text-index.ts
 * `pendingFills`) keeps the plain plan then; only this statement's own read is exact.
 */
export const TRACE_NAMES: NameEntries = {
  table: 'call_trace_names',
  key: 'name_key',
  name: TRACE_NAME_SQL,
  rootKey: true,
  sorts: (field) => field.kind === 'derived' && field.name === 'trace_name',
  whenUnreadable: (project) => everyCallUntilFilled(project, FILL_NAMES.traceNames),
};

/**
 * `call_op_names` (migration 029): `op_name`, with the root key. `calls_by_op` orders an op's calls by
 * start; these entries by id, as the sort's tie-break does. Filled like `TRACE_NAMES`.
 */
export const OP_NAMES: NameEntries = {
  table: 'call_op_names',
  key: 'name_key',
  name: 'c.op_name',
  rootKey: true,
  sorts: (field) => field.kind === 'column' && field.name === 'op_name',
  whenUnreadable: (project) => everyCallUntilFilled(project, FILL_NAMES.opNames),
};

const prefix = (name: string): string => `substr(${name}, 1, ${DISPLAY_KEY_CHARS})`;

/**
 * Writes the entries of the calls `c` in `from` matching `where` (the call indexer,
 * call-indexes/text-index.ts, and its fills, call-indexes/entry-fills.ts). Entries already there are kept: those
 * of calls renamed since (`/call/update`, a start sent again with another name) are stale, and
 * queries skip them by comparing with the call's name now (`nameCandidates`).
 */
export function insertNamesSql(entries: NameEntries, from: string, where: string): string {
  const { table, key, name } = entries;
  const kind = `(CASE WHEN ${name} IS NULL THEN ${DISPLAY_UNNAMED}
  WHEN ${prefix(name)} = ${name} THEN ${DISPLAY_WHOLE} ELSE ${DISPLAY_CUT} END)`;
  const [rootColumn, root] = entries.rootKey
    ? [' root,', ' CASE WHEN c.parent_id IS NULL THEN 1 ELSE 0 END,']
    : ['', ''];
  return `INSERT INTO ${table} (project_id,${rootColumn} kind, ${key}, id)
  SELECT c.project_id,${root} ${kind}, COALESCE(${prefix(name)}, ''), c.id FROM ${from} WHERE ${where}
  ON CONFLICT DO NOTHING`;
}

/** The `call_display` entries (the indexer and its fill). */
export const insertDisplaySql = (from: string, where: string): string => insertNamesSql(DISPLAY_NAMES, from, where);

/** How a page sorted by a name is read along its entries: the directions of the compiled ORDER BY. */
export interface NameWalk {
  nameDir: 'ASC' | 'DESC';
  idDir: 'ASC' | 'DESC';
}

/**
 * A sort by the name of `entries` alone (the compiled tie-break is then `id DESC`, calls-query/select.ts
 * `orderTerms`) or then by `id`; null for any other sort (the ties would be ordered by other keys,
 * which the entries do not hold).
 */
export function nameWalk(entries: NameEntries, q: CallsQuery): NameWalk | null {
  const sortBy = q.sort_by;
  if (sortBy == null || sortBy.length === 0 || sortBy.length > 2) return null;
  const [first, second] = sortBy;
  if (!entries.sorts(first!.field)) return null;
  if (second !== undefined && (second.field.kind !== 'column' || second.field.name !== 'id')) return null;
  const upper = (direction: 'asc' | 'desc'): 'ASC' | 'DESC' => (direction === 'asc' ? 'ASC' : 'DESC');
  return { nameDir: upper(first!.direction), idDir: second === undefined ? 'DESC' : upper(second.direction) };
}

/**
 * The candidates of a page sorted by a name: for each kind, the first `n` entries in the page's
 * order whose call has that name now (others are stale) and matches `where` (the query's whole WHERE
 * over `c`), the calls after the project's mark (`unindexedCalls`, every call when no mark covers
 * the project), and every call while the entries cannot be read (`whenUnreadable`). The compiled
 * ORDER BY puts NULL names last in both directions, then orders by `id`; a call of the first `n` of
 * the page is either after the mark or has its current entry among the first `n` of its kind in
 * that order:
 *
 * - whole names: along the key, then `id` (the primary key, or the `…_by_id_desc` index for the
 *   mixed directions the default `id DESC` tie-break gives an ascending sort);
 * - cut names: along the key, then by the call's current name, then `id` (the names under one key
 *   are sorted; a current entry's call has a name that starts with the key);
 * - NULL names: along `id`.
 *
 * The call of an entry is tested in a scalar subquery (one row or none: the primary key), as the
 * status walk does (calls-query/status.ts `statusCandidates`), so that neither store joins every call.
 *
 * With a root key (`rootKey`), each kind is walked among the roots' entries and, unless the query
 * reads roots only (`rootsOnly`), among the other calls' too, the first `n` of each: a call's
 * current entry is under its current place (a call whose parent changed is after the mark), and a
 * stale one under the other place that passes the name test is the same call at the same place in
 * the order, so each walk still yields distinct calls in the page's order.
 */
export function nameCandidates(
  entries: NameEntries,
  walk: NameWalk,
  projectId: string,
  rootsOnly: boolean,
  n: number,
  where: (p: SqlParams) => string,
  d: SqlDialect,
  p: SqlParams,
): string {
  const project = p.add(projectId);
  const { nameDir, idDir } = walk;
  const { table, key, name } = entries;
  const callOf = (select: string, current: string): string =>
    `(SELECT ${select} FROM calls c WHERE c.project_id = l.project_id AND c.id = l.id AND ${current} AND ${where(p)})`;
  const places = !entries.rootKey ? [''] : rootsOnly ? [' AND l.root = 1'] : [' AND l.root = 1', ' AND l.root = 0'];
  const walks = places.flatMap((place) => {
    const walkKind = (kind: string, current: string, order: string): string =>
      `SELECT id FROM (SELECT l.id FROM ${table} l
        WHERE l.project_id = ${project}${place} AND ${kind} AND ${callOf('1', current)} IS NOT NULL
        ORDER BY ${order} ${d.limitOffset(n, null, p)}) e`;
    // (a call renamed to the key itself passes too, and sorts under the key as it does among all calls)
    const cutCurrent = `${prefix(name)} = l.${key}`;
    const cut = `SELECT id FROM (SELECT l.id, l.${key} AS name_key, ${callOf(name, cutCurrent)} AS name
        FROM ${table} l WHERE l.project_id = ${project}${place} AND l.kind = ${DISPLAY_CUT}) x
      WHERE x.name IS NOT NULL
      ORDER BY x.name_key ${nameDir}, x.name ${nameDir}, x.id ${idDir} ${d.limitOffset(n, null, p)}`;
    return [
      walkKind(`l.kind = ${DISPLAY_WHOLE}`, `${name} = l.${key}`, `l.${key} ${nameDir}, l.id ${idDir}`),
      `SELECT id FROM (${cut}) k`,
      // the key named, so that the walk runs along `id` within it
      walkKind(`l.kind = ${DISPLAY_UNNAMED} AND l.${key} = ''`, `${name} IS NULL`, `l.id ${idDir}`),
    ];
  });
  return [...walks, unindexedCalls('id', project), entries.whenUnreadable(project)].join(' UNION ALL ');
}

/**
 * A sort by `display_name`, `summary.weave.trace_name` or `op_name` (alone or then `id`), with a
 * limit, on a project whose entries of that name are filled (`readable`): the candidates of its page
 * along `call_display` (migration 021), `call_trace_names` (migration 026) or `call_op_names`
 * (migration 029) and the calls after the project's mark (calls-query/names.ts `nameCandidates`;
 * docs/query-performance.md "The display-name sort off the commit path", "The trace-name sort off the
 * commit path", "The op-name sort"). The query then filters and orders them exactly as the plain
 * query orders all calls. Null where the plain query keeps its plan, as for the latency and status walks.
 */
function namePath(name: string, entries: NameEntries, fill: FillName, skipWhenOpFilter = false): AccessPath {
  return {
    name,
    candidates(plan) {
      const { q, d } = plan;
      if (!plan.states.filled(fill) || !q.limit || q.changed_after) return null;
      // an op filter is read along calls_by_op, which the walk of every op's entries would not narrow
      if (skipWhenOpFilter && q.filter?.op_names?.length) return null;
      const walk = nameWalk(entries, q);
      if (walk === null || plan.narrowed) return null;
      const rootsOnly = q.filter?.trace_roots_only === true;
      const ids = (p: SqlParams): string =>
        nameCandidates(entries, walk, q.project_id, rootsOnly, plan.rows, (wp) => plan.where(wp), d, p);
      return { ids, driving: true };
    },
  };
}

/** The name sorts' paths, in the order they are tried. */
export const NAME_PATHS: readonly AccessPath[] = [
  namePath('display-name', DISPLAY_NAMES, FILL_NAMES.display),
  namePath('trace-name', TRACE_NAMES, FILL_NAMES.traceNames),
  namePath('op-name', OP_NAMES, FILL_NAMES.opNames, true),
];
