/**
 * The string leaves of a call's `inputs`, `output` and `attributes` that the `call_values` index
 * holds (docs/query-performance.md, "Equality on an input field" and "Output and attribute fields"):
 * string values one and two object keys deep, up to INDEXED_VALUE_MAX characters. The call indexer
 * writes them in SQL after ingest (src/store/sql/call-indexes/text-dialects.ts `insertValues`;
 * test/store/contract/calls-value-index.test.ts checks that they are the leaves this function
 * gives); the query compiler (src/store/sql/calls-query/expr-values.ts) uses the index only for the fields
 * and literals it covers.
 */

/** The longest string leaf indexed, in characters (code points, as SQL `length` counts). */
export const INDEXED_VALUE_MAX = 128;
/** How many object keys deep leaves are indexed. */
export const INDEXED_DEPTH = 2;
/** Joins the column and keys of a leaf into its `call_values.path`. */
export const PATH_SEPARATOR = '\u001f';

/** The call columns whose leaves `call_values` holds. */
export type ValueColumn = 'inputs' | 'output' | 'attributes';

/**
 * The key of `attributes` whose leaves are not indexed: the client's own metadata
 * (`weave.client_version`, `weave.os_name`, …), the same for every call a client sends, so its
 * leaves would narrow nothing and would be most of the index's rows. Equalities under it scan.
 */
export const UNINDEXED_ATTRIBUTES_KEY = 'weave';

/** Whether the leaves under the top-level `key` of `column` are indexed. */
export function indexedKey(column: ValueColumn, key: string): boolean {
  return column !== 'attributes' || key !== UNINDEXED_ATTRIBUTES_KEY;
}

/**
 * The leaves of one column's value as a flat list `[path, value, path, value, …]`, the definition
 * the indexer's SQL follows. Paths start with the column's name; a value that is not a plain object
 * has no leaves.
 */
export function valueLeaves(column: ValueColumn, json: unknown): string[] {
  const out: string[] = [];
  if (!isPlainObject(json)) return out;
  for (const [key, value] of Object.entries(json)) {
    if (!indexedKey(column, key)) continue;
    if (typeof value === 'string') {
      if (fits(value)) out.push(`${column}${PATH_SEPARATOR}${key}`, value);
    } else if (isPlainObject(value)) {
      for (const [inner, leaf] of Object.entries(value)) {
        if (typeof leaf === 'string' && fits(leaf))
          out.push(`${column}${PATH_SEPARATOR}${key}${PATH_SEPARATOR}${inner}`, leaf);
      }
    }
  }
  return out;
}

/** Whether a string is short enough to index: code points, not UTF-16 units. */
export function fitsIndexedValue(value: string): boolean {
  return fits(value);
}

function fits(value: string): boolean {
  if (value.length <= INDEXED_VALUE_MAX) return true;
  if (value.length > 2 * INDEXED_VALUE_MAX) return false;
  let points = 0;
  for (const _ of value) points += 1;
  return points <= INDEXED_VALUE_MAX;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
