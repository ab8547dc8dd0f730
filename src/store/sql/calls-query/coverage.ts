/**
 * How far the call indexer has come in a project, on the query side: its mark (the calls at or
 * below it have their entries), the tail after it, and the fills of entry tables (call-indexes/).
 * Every access path of this folder reads its entries and adds the tail, so answers are the scan's.
 */

/**
 * The mark's SQL (both stores): the tail after it, or every call when the project is not covered.
 * Written so that each part reads only what it returns, with or without the planner's statistics:
 * the tail as two ranges of `calls_by_change` (SQLite walks a row-value range `(change_seq, id) >
 * (s, i)` from `change_seq = s`, every call of the mark's last write), and the uncovered case behind a one-row table that is
 * empty when a mark covers the project (SQLite tested a NOT EXISTS beside `t.project_id` on every
 * call of the project: 4 ms per 100,000 calls on each indexed query).
 */
export function unindexedCalls(idColumn: string, project: string): string {
  const covered = `FROM call_text_marks m WHERE m.project_id = ${project} AND m.nulls_done = 1`;
  const marked = `FROM call_text_marks m CROSS JOIN calls t
      WHERE m.project_id = ${project} AND m.nulls_done = 1 AND t.project_id = ${project}`;
  return `SELECT t.${idColumn} ${marked} AND t.change_seq > m.indexed_seq
    UNION ALL SELECT t.${idColumn} ${marked} AND t.change_seq = m.indexed_seq AND t.id > m.indexed_id
    UNION ALL SELECT t.${idColumn} FROM (SELECT 1 AS one WHERE NOT EXISTS (SELECT 1 ${covered})) g CROSS JOIN calls t
      WHERE t.project_id = ${project}`;
}

/**
 * SQL true when the call `c` is at or below its project's mark (the call indexer has written its
 * entries): the background writers of entries (call-indexes/cost-entries.ts, call-indexes/entry-fills.ts) leave the
 * calls after the mark to the indexer, which writes them with the other entries, so that no call is
 * written twice.
 */
export const AT_OR_BELOW_MARK = `EXISTS (SELECT 1 FROM call_text_marks m WHERE m.project_id = c.project_id
  AND ((c.change_seq IS NULL AND (m.nulls_done = 1 OR c.id <= m.null_id))
    OR (m.nulls_done = 1 AND (c.change_seq, c.id) <= (m.indexed_seq, m.indexed_id))))`;

/**
 * The ids of every call of the project `project` (a placeholder) when `condition` (SQL over no table)
 * holds, and none otherwise: the condition gates a one-row derived table, as `unindexedCalls` does, since SQLite would test it beside every call of the project.
 */
export const everyCallWhen = (condition: string, project: string): string =>
  `SELECT t.id FROM (SELECT 1 AS one WHERE ${condition}) g CROSS JOIN calls t WHERE t.project_id = ${project}`;

/** The names of the background fills in `call_entry_fills` (call-indexes/entry-fills.ts; letters and underscores). */
export const FILL_NAMES = {
  latency: 'latency',
  latencyRoots: 'latency_roots',
  status: 'status',
  statusRoots: 'status_roots',
  display: 'display',
  tokens: 'tokens',
  tokenRoots: 'token_roots',
  traceNames: 'trace_names',
  opNames: 'op_names',
  outputValues: 'output_values',
  attributeValues: 'attribute_values',
} as const;

export type FillName = (typeof FILL_NAMES)[keyof typeof FILL_NAMES];

/**
 * SQL true when the fill `name` (one of FILL_NAMES) of the project `project` (a placeholder) is done:
 * a walk's own check, exact whatever a cached hint said.
 */
export const entriesFilled = (project: string, name: FillName): string =>
  `EXISTS (SELECT 1 FROM call_entry_fills f WHERE f.project_id = ${project} AND f.entries = '${name}'
    AND f.filled_after IS NULL)`;

/** The entries a walk reads: their table and the fill that completes them for calls indexed before it. */
export interface WalkEntries {
  table: string;
  fill: FillName;
}

/**
 * Entries kept for every call and the same for trace roots alone (`call_latency_roots`,
 * `call_status_roots`): a roots-only query (the traces page's default) reads the roots' own once
 * their fill is done (`filled`, the compiler's hint), any other the calls'.
 */
export function entriesFor(
  entries: { all: WalkEntries; roots: WalkEntries },
  rootsOnly: boolean,
  filled: (name: FillName) => boolean,
): WalkEntries {
  return rootsOnly && filled(entries.roots.fill) ? entries.roots : entries.all;
}

/**
 * The ids of every call of the project `project` (a placeholder) until its fill `name` is done: a walk
 * of entries that fill writes adds them to its candidates, so that its answer is the plain query's
 * while some calls at or below the mark may have no entry yet.
 */
export const everyCallUntilFilled = (project: string, name: FillName): string =>
  everyCallWhen(`NOT ${entriesFilled(project, name)}`, project);
