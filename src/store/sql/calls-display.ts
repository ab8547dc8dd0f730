import type { CallsQuery } from '../types.js';
import { unindexedCalls } from './calls-expr-text.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';

/**
 * The display-name sort off the commit path (migration 021, docs/query-performance.md "The
 * display-name sort off the commit path"). `call_display (project_id, kind, display_key, id)` holds,
 * for every call at or below its project's mark of the call indexer, its `display_name` as it was
 * when the indexer read it, in one of three kinds:
 *
 * - `WHOLE` (0): a name of at most DISPLAY_KEY_CHARS characters, the key being the name itself;
 * - `CUT` (1): a longer name, keyed by its first DISPLAY_KEY_CHARS characters (a PostgreSQL B-tree
 *   entry holds at most about 2.7 KB, and a name is unbounded);
 * - `UNNAMED` (2): a NULL name, keyed by '' (key columns cannot be NULL).
 *
 * Both stores compare `display_name` byte-wise (SQLite's BINARY, PostgreSQL's column collation
 * "C", which the entries' key column has too), and a character prefix is a byte prefix of the
 * UTF-8 text: so a cut key that sorts before another (not equal) belongs to a name that sorts
 * before it too. Within one cut key the names are sorted by the call's current name.
 */

/** The characters of a name kept in a key (at most 1 KB of UTF-8 with project and id, under PostgreSQL's B-tree limit). */
export const DISPLAY_KEY_CHARS = 256;

export const DISPLAY_WHOLE = 0;
export const DISPLAY_CUT = 1;
export const DISPLAY_UNNAMED = 2;

const prefix = (name: string): string => `substr(${name}, 1, ${DISPLAY_KEY_CHARS})`;

/** The kind of the entry of the call `c` (SQL; the same text on both stores). */
const KIND_SQL = `(CASE WHEN c.display_name IS NULL THEN ${DISPLAY_UNNAMED}
  WHEN ${prefix('c.display_name')} = c.display_name THEN ${DISPLAY_WHOLE} ELSE ${DISPLAY_CUT} END)`;

/** The key of the entry of the call `c`. */
const KEY_SQL = `COALESCE(${prefix('c.display_name')}, '')`;

/**
 * Writes the `call_display` entries of the calls `c` matching `where` (the call indexer,
 * call-text-index.ts, and migration 021). Entries already there are kept: those of calls renamed
 * since (`/call/update`, a start sent again with another name) are stale, and queries skip them by
 * comparing with the call's `display_name` (`displayCandidates`).
 */
export const insertDisplaySql = (from: string, where: string): string =>
  `INSERT INTO call_display (project_id, kind, display_key, id)
  SELECT c.project_id, ${KIND_SQL}, ${KEY_SQL}, c.id FROM ${from} WHERE ${where}
  ON CONFLICT DO NOTHING`;

/** How a page sorted by display name is read along `call_display`: the directions of the compiled ORDER BY. */
export interface DisplayWalk {
  nameDir: 'ASC' | 'DESC';
  idDir: 'ASC' | 'DESC';
}

/**
 * A sort by the `display_name` column alone (the compiled tie-break is then `id DESC`,
 * calls-select.ts `orderTerms`) or then by `id`; null for any other sort (the ties would be ordered
 * by other keys, which the entries do not hold).
 */
export function displayWalk(q: CallsQuery): DisplayWalk | null {
  const sortBy = q.sort_by;
  if (sortBy == null || sortBy.length === 0 || sortBy.length > 2) return null;
  const [first, second] = sortBy;
  if (first!.field.kind !== 'column' || first!.field.name !== 'display_name') return null;
  if (second !== undefined && (second.field.kind !== 'column' || second.field.name !== 'id')) return null;
  const upper = (direction: 'asc' | 'desc'): 'ASC' | 'DESC' => (direction === 'asc' ? 'ASC' : 'DESC');
  return { nameDir: upper(first!.direction), idDir: second === undefined ? 'DESC' : upper(second.direction) };
}

/**
 * The candidates of a page sorted by display name: for each kind, the first `n` entries in the
 * page's order whose call has that name now (others are stale) and matches `where` (the query's
 * whole WHERE over `c`), and the calls after the project's mark (`unindexedCalls`, every call when
 * no mark covers the project). The compiled ORDER BY puts NULL names last in both directions, then
 * orders by `id`; a call of the first `n` of the page is either after the mark or has its current
 * entry among the first `n` of its kind in that order:
 *
 * - whole names: along the key, then `id` (the primary key, or `call_display_by_id_desc` for the
 *   mixed directions the default `id DESC` tie-break gives an ascending sort);
 * - cut names: along the key, then by the call's current name, then `id` (the names under one key
 *   are sorted; a current entry's call has a name that starts with the key);
 * - NULL names: along `id`.
 *
 * The call of an entry is tested in a scalar subquery (one row or none: the primary key), as the
 * status walk does (calls-status.ts `statusCandidates`), so that neither store joins every call.
 */
export function displayCandidates(
  walk: DisplayWalk,
  projectId: string,
  n: number,
  where: (p: SqlParams) => string,
  d: SqlDialect,
  p: SqlParams,
): string {
  const project = p.add(projectId);
  const { nameDir, idDir } = walk;
  const callOf = (select: string, current: string): string =>
    `(SELECT ${select} FROM calls c WHERE c.project_id = l.project_id AND c.id = l.id AND ${current} AND ${where(p)})`;
  const entries = (kind: string, current: string, order: string): string =>
    `SELECT id FROM (SELECT l.id FROM call_display l
        WHERE l.project_id = ${project} AND ${kind} AND ${callOf('1', current)} IS NOT NULL
        ORDER BY ${order} ${d.limitOffset(n, null, p)}) e`;
  // (a call renamed to the key itself passes too, and sorts under the key as it does among all calls)
  const cutCurrent = `${prefix('c.display_name')} = l.display_key`;
  const cut = `SELECT id FROM (SELECT l.id, l.display_key, ${callOf('c.display_name', cutCurrent)} AS name
        FROM call_display l WHERE l.project_id = ${project} AND l.kind = ${DISPLAY_CUT}) x
      WHERE x.name IS NOT NULL
      ORDER BY x.display_key ${nameDir}, x.name ${nameDir}, x.id ${idDir} ${d.limitOffset(n, null, p)}`;
  return [
    entries(`l.kind = ${DISPLAY_WHOLE}`, 'c.display_name = l.display_key', `l.display_key ${nameDir}, l.id ${idDir}`),
    `SELECT id FROM (${cut}) k`,
    // the key named, so that the walk runs along `id` within it
    entries(`l.kind = ${DISPLAY_UNNAMED} AND l.display_key = ''`, 'c.display_name IS NULL', `l.id ${idDir}`),
    unindexedCalls('id', project),
  ].join(' UNION ALL ');
}
