import { allTrigramsOf, ftsString } from '../core/fts-trigrams.js';
import { likeLiteral } from '../core/like-pattern.js';
import type { SqlParams, TextNeedle } from '../core/sql-dialect.js';
import { unindexedCalls } from './coverage.js';

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

/**
 * SQLite: each needle as the AND of its trigrams in `call_text_trigrams` (migration 032, no
 * positions, so no phrases), and as an FTS5 phrase in `call_text_fts`, which holds the entries
 * written before that migration (`"` doubled inside either); several needles joined by `OR`. The
 * tokenizer folds case, so a case-sensitive needle gets a superset too.
 */
export function sqliteTextCandidates(projectId: string, needles: readonly TextNeedle[], p: SqlParams): string {
  const project = p.add(projectId);
  const unique = [...new Set(needles.map(({ needle }) => needle))];
  const trigrams = unique.map(allTrigramsOf);
  const phrases = unique.map(ftsString);
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
    const escaped = likeLiteral(needle);
    const search = { op: ci ? 'ILIKE' : 'LIKE', pattern: `%${ci ? escaped.replaceAll('k', '_') : escaped}%` };
    tests.set(`${search.op} ${search.pattern}`, search);
  }
  const sql = [...tests.values()].map(({ op, pattern }) => `x.text ${op} ${p.add(pattern)}`);
  const text = sql.length === 1 ? sql[0]! : `(${sql.join(' OR ')})`;
  return `c.id IN (SELECT x.id FROM call_texts x WHERE x.project_id = ${project} AND ${text}
    UNION ALL ${unindexedCalls('id', project)})`;
}
