/**
 * `summary.weave.total_tokens` (docs/spec/calls.md §5.2, a query-only field): the call's token total
 * exactly as the web UI's `tokenUsage(call).total` computes it (web/src/lib/call.ts). Over every
 * value of `summary.usage` (an object's values, an array's elements) that is an object or an array
 * (a model's usage): its `total_tokens` when that is a non-zero number, else `(prompt_tokens +
 * input_tokens) + (completion_tokens + output_tokens)`, where anything but a finite JSON number
 * counts as 0 (numeric strings too); NULL when no such value exists.
 *
 * One SQL expression per store, free of bound parameters: the query compiler uses it (calls-expr.ts,
 * through `SqlDialect.derivedTokens`), and the call indexer and migration 022 write the `call_tokens`
 * entries with it, so an entry holds exactly the total a query computes.
 * test/store/contract/calls-tokens.test.ts compares it with the UI's function.
 */

/** The largest finite double: a JSON number beyond it parses to ±Infinity in JavaScript, which the UI counts as 0. */
const MAX_DOUBLE = '1.7976931348623157e308';

/** SQLite: the per-model total of the usage entry `e` (a `json_each` row). */
const sqliteNum = (key: string): string => {
  const at = `'$."${key}"'`;
  return `(CASE WHEN json_type(e.value, ${at}) IN ('integer', 'real') AND abs(json_extract(e.value, ${at})) <= ${MAX_DOUBLE}
    THEN json_extract(e.value, ${at}) ELSE 0 END)`;
};

/** The per-model numbers, named as the sums below read them. */
const NUMS: ReadonlyArray<[string, string]> = [
  ['total_tokens', 'n_total'],
  ['prompt_tokens', 'n_prompt'],
  ['input_tokens', 'n_input'],
  ['completion_tokens', 'n_completion'],
  ['output_tokens', 'n_output'],
];
/** A model's total over its numbers `v.*`: `total_tokens || prompt + completion`, as the UI. */
const MODEL_TOTAL =
  'CASE WHEN v.n_total <> 0 THEN v.n_total ELSE (v.n_prompt + v.n_input) + (v.n_completion + v.n_output) END';

/**
 * SQLite: `TOTAL` sums as doubles and never fails on an integer overflow (`SUM` would). Sums of
 * integers below 2^53 are exact, so equal the UI's; fractional counts may differ in the last bit
 * (SQLite's `TOTAL` compensates rounding, JavaScript adds in key order).
 */
export const SQLITE_DERIVED_TOKENS = `(SELECT CASE WHEN COUNT(*) > 0 THEN TOTAL(${MODEL_TOTAL}) END
  FROM (SELECT ${NUMS.map(([key, as]) => `${sqliteNum(key)} AS ${as}`).join(', ')}
    FROM json_each(c.summary, '$."usage"') e
    WHERE json_type(c.summary, '$."usage"') IN ('object', 'array') AND e.type IN ('object', 'array')) v)`;

/** PostgreSQL: a number of the usage entry `m.u` as `numeric` (JSONB keeps numbers as numeric; the cast to float8 would fail past the double range). */
const postgresNum = (key: string): string => {
  const v = `(m.u -> '${key}')`;
  return `(CASE WHEN jsonb_typeof(${v}) = 'number' AND abs((${v})::numeric) <= ${MAX_DOUBLE} THEN (${v})::numeric ELSE 0 END)`;
};

/**
 * PostgreSQL: summed as `numeric` (exact, never overflows), then a double, ±Infinity past its range
 * as in JavaScript (a float8 sum would fail there instead).
 */
const POSTGRES_USAGE = `(c.summary -> 'usage')`;
export const POSTGRES_DERIVED_TOKENS = `(SELECT CASE WHEN s.n = 0 THEN NULL WHEN s.t > ${MAX_DOUBLE} THEN 'Infinity'::float8
    WHEN s.t < -${MAX_DOUBLE} THEN '-Infinity'::float8 ELSE s.t::float8 END
  FROM (SELECT COUNT(*) AS n, SUM(${MODEL_TOTAL}) AS t
    FROM (SELECT ${NUMS.map(([key, as]) => `${postgresNum(key)} AS ${as}`).join(', ')}
      FROM (SELECT e.value AS u FROM jsonb_each(CASE WHEN jsonb_typeof(${POSTGRES_USAGE}) = 'object' THEN ${POSTGRES_USAGE} ELSE '{}'::jsonb END) e
        UNION ALL SELECT a.value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${POSTGRES_USAGE}) = 'array' THEN ${POSTGRES_USAGE} ELSE '[]'::jsonb END) a) m
      WHERE jsonb_typeof(m.u) IN ('object', 'array')) v) s)`;

/**
 * `call_tokens` (migration 022) files a call whose total is NULL with `is_null = 1` and `tokens = 0`,
 * after every call with a total in both directions (a sort puts NULLs last). A flag, not a sentinel
 * value: any double is a possible total.
 */

/**
 * Writes the `call_tokens` entries of the calls `c` matching `where` (the call indexer,
 * call-text-index.ts, and migration 022). Entries already there are kept: those of calls whose
 * total changed since are stale, and queries skip them by comparing with the call's total now.
 */
export const insertTokensSql = (tokens: string, from: string, where: string): string =>
  `INSERT INTO call_tokens (project_id, is_null, tokens, id)
  SELECT k.project_id, CASE WHEN k.t IS NULL THEN 1 ELSE 0 END, COALESCE(k.t, 0), k.id
  FROM (SELECT c.project_id, c.id, ${tokens} AS t FROM ${from} WHERE ${where}) k WHERE 1 = 1
  ON CONFLICT DO NOTHING`;
