/** Queries of SQLite's FTS5 trigram tables kept with `detail = none` (no positions, so no phrases). */

/** An FTS5 string: one token or phrase, `"` doubled inside. */
export const ftsString = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/** The FTS5 query for rows whose text may hold `needle` (three or more code points): the AND of its distinct trigrams. */
export function allTrigramsOf(needle: string): string {
  const chars = [...needle];
  const grams = new Set(chars.slice(2).map((_, i) => ftsString(chars.slice(i, i + 3).join(''))));
  return `(${[...grams].join(' AND ')})`;
}
