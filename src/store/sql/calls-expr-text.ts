import type { SqlParams } from './sql-dialect.js';

/**
 * The substring index of migration 017 on the query side (docs/query-performance.md "Substrings").
 * The index only proposes candidate calls, a superset of the matches; the exact `$contains` test
 * stays in the query and decides, so results are those of the scan.
 */

/** Trigram indexes find nothing for fewer than three characters. */
const MIN_CHARS = 3;

/**
 * The text the index is searched for, or null where it cannot answer (the query then scans):
 *
 * - fewer than 3 characters, or a NUL character;
 * - case-insensitive: only ASCII. The exact test lower-cases both sides with the full Unicode
 *   mapping (JavaScript's on SQLite, ICU's on PostgreSQL); the index folds case one code point at a
 *   time. For an ASCII needle the two agree except where a non-ASCII character lower-cases to ASCII:
 *   U+212A KELVIN SIGN (→ k; SQLite's index folds it so too, PostgreSQL's pattern lets any character stand for a k) and U+0130 (→ 'i' + U+0307). The latter
 *   can only be the last character of a match, so a trailing 'i' is left out of the search.
 */
export function textIndexNeedle(substr: string, caseInsensitive: boolean): string | null {
  let needle = substr;
  if (needle.includes('\u0000')) return null;
  if (caseInsensitive) {
    if (!/^\p{ASCII}*$/u.test(needle)) return null;
    needle = needle.toLowerCase();
    if (needle.endsWith('i')) needle = needle.slice(0, -1);
  }
  return [...needle].length >= MIN_CHARS ? needle : null;
}

/** One text the index is searched for (`textIndexNeedle`), and whether case is folded. */
export interface TextNeedle {
  needle: string;
  caseInsensitive: boolean;
}

/** How a dialect searches its text index (sqlite-dialect.ts, postgres-dialect.ts). */
export interface TextCandidateSql {
  /**
   * A SQL boolean over the call `c`: true for every call of the project whose inputs or output may
   * contain any of `needles` (each case folded when `caseInsensitive`; several for an `$or` of
   * `$contains`, calls-expr.ts): the index's matches, the calls written after the project's mark
   * (not indexed yet), and every call of a project the index does not cover yet.
   */
  textCandidates(projectId: string, needles: readonly TextNeedle[], p: SqlParams): string;
}

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
 * SQLite: each needle as the AND of its trigrams in `call_text_trigrams` (migration 032, no
 * positions, so no phrases), and as an FTS5 phrase in `call_text_fts`, which holds the entries
 * written before that migration (`"` doubled inside either); several needles joined by `OR`. The
 * tokenizer folds case, so a case-sensitive needle gets a superset too.
 */
export function sqliteTextCandidates(projectId: string, needles: readonly TextNeedle[], p: SqlParams): string {
  const project = p.add(projectId);
  const quoted = (text: string): string => `"${text.replaceAll('"', '""')}"`;
  const unique = [...new Set(needles.map(({ needle }) => needle))];
  const trigrams = unique.map((needle) => {
    const chars = [...needle];
    const grams = new Set(chars.slice(2).map((_, i) => quoted(chars.slice(i, i + 3).join(''))));
    return `(${[...grams].join(' AND ')})`;
  });
  const phrases = unique.map(quoted);
  return `c.rowid IN (SELECT rowid FROM call_text_trigrams WHERE call_text_trigrams MATCH ${p.add(trigrams.join(' OR '))}
    UNION ALL SELECT rowid FROM call_text_fts WHERE call_text_fts MATCH ${p.add(phrases.join(' OR '))}
    UNION ALL ${unindexedCalls('rowid', project)})`;
}

/**
 * PostgreSQL: `LIKE`/`ILIKE` over `call_texts` (several joined by `OR`, which the planner answers
 * with one bitmap scan of the index per pattern), which `pg_trgm`'s GIN index answers. `ILIKE`
 * folds case with the database's collation, which may leave U+212A KELVIN SIGN as it is where the
 * exact test (ICU) reads 'k': a 'k' of the needle matches any one character there.
 */
export function postgresTextCandidates(projectId: string, needles: readonly TextNeedle[], p: SqlParams): string {
  const project = p.add(projectId);
  // one test per distinct pattern and operator: the search box sends the same text for both columns
  const tests = new Map<string, { op: string; pattern: string }>();
  for (const { needle, caseInsensitive: ci } of needles) {
    const escaped = needle.replace(/[\\%_]/g, (ch) => `\\${ch}`);
    const search = { op: ci ? 'ILIKE' : 'LIKE', pattern: `%${ci ? escaped.replaceAll('k', '_') : escaped}%` };
    tests.set(`${search.op} ${search.pattern}`, search);
  }
  const sql = [...tests.values()].map(({ op, pattern }) => `x.text ${op} ${p.add(pattern)}`);
  const text = sql.length === 1 ? sql[0]! : `(${sql.join(' OR ')})`;
  return `c.id IN (SELECT x.id FROM call_texts x WHERE x.project_id = ${project} AND ${text}
    UNION ALL ${unindexedCalls('id', project)})`;
}

/**
 * SQL true when the call `c` is at or below its project's mark (the call indexer has written its
 * entries): the background writers of entries (call-cost-entries.ts, call-entry-fills.ts) leave the
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

/** The names of the background fills in `call_entry_fills` (call-entry-fills.ts; letters and underscores). */
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
