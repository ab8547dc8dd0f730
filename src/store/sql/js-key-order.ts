/**
 * JavaScript enumerates an object's keys (Object.values, Object.entries, for…in) with the array-index
 * keys ("0" to "4294967294", canonical decimal) first in numeric order, then the others in insertion
 * order. Sums the web UI computes over `summary.usage` follow that order, and floating-point sums
 * depend on it, so the SQL that repeats them orders the entries the same way: these are the three
 * ORDER BY terms over a `json_each` / `jsonb_each` row `e` (calls-query/tokens.ts, calls-query/cost.ts).
 */

/** SQLite: `e.key` is an array-index key (an array's entries have integer keys: compared as text). */
const SQLITE_KEY = 'CAST(e.key AS TEXT)';
const SQLITE_INDEX_KEY = `(${SQLITE_KEY} NOT GLOB '*[^0-9]*' AND ${SQLITE_KEY} <> ''
  AND (${SQLITE_KEY} = '0' OR substr(${SQLITE_KEY}, 1, 1) <> '0') AND length(${SQLITE_KEY}) <= 10
  AND CAST(${SQLITE_KEY} AS INTEGER) <= 4294967294)`;

/** SQLite: `json_each`'s `e.id` grows in the text's order, which is the insertion order. */
export const SQLITE_JS_KEY_ORDER: [string, string, string] = [
  `CASE WHEN ${SQLITE_INDEX_KEY} THEN 0 ELSE 1 END`,
  `CASE WHEN ${SQLITE_INDEX_KEY} THEN CAST(e.key AS INTEGER) ELSE 0 END`,
  'e.id',
];

/** PostgreSQL: the cast only under the pattern (AND does not order its operands there). */
const postgresIndexKey = (key: string, then: string, otherwise: string): string =>
  `CASE WHEN ${key} ~ '^(0|[1-9][0-9]{0,9})$' THEN CASE WHEN ${key}::bigint <= 4294967294 THEN ${then} ELSE ${otherwise} END ELSE ${otherwise} END`;

/**
 * PostgreSQL over `key` and `ord` (`WITH ORDINALITY`): JSONB keeps an object's keys in its own order
 * (shorter first), which is the order the server returns them in, so JavaScript's order over that text.
 */
export const postgresJsKeyOrder = (key: string, ord: string): [string, string, string] => [
  postgresIndexKey(key, '0', '1'),
  postgresIndexKey(key, `${key}::bigint`, '0'),
  ord,
];
