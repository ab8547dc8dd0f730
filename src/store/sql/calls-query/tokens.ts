/**
 * `summary.weave.total_tokens` (docs/spec/calls.md §5.2, a query-only field): the call's token total
 * exactly as the web UI's `tokenUsage(call).total` computes it (web/src/lib/call.ts). Over every
 * value of `summary.usage` (an object's values, an array's elements) that is an object or an array
 * (a model's usage): its `total_tokens` when that is a non-zero number, else `(prompt_tokens +
 * input_tokens) + (completion_tokens + output_tokens)`, where anything but a finite JSON number
 * counts as 0 (numeric strings too); NULL when no such value exists.
 *
 * One SQL expression per store, free of bound parameters: the query compiler uses it (calls-query/expr.ts,
 * through `SqlDialect.derivedTokens`), and the call indexer and migration 022 write the `call_tokens`
 * entries with it, so an entry holds exactly the total a query computes.
 * test/store/contract/calls-tokens.test.ts compares it with the UI's function.
 */
import { postgresNumber } from './cost.js';
import { postgresJsKeyOrder, SQLITE_JS_KEY_ORDER } from '../js-key-order.js';

/** The largest finite double: a JSON number beyond it parses to ±Infinity in JavaScript, which the UI counts as 0. */
const MAX_DOUBLE = '1.7976931348623157e308';

/** The per-model numbers, named as the sums below read them. */
const NUMS: ReadonlyArray<[string, string]> = [
  ['total_tokens', 'n_total'],
  ['prompt_tokens', 'n_prompt'],
  ['input_tokens', 'n_input'],
  ['completion_tokens', 'n_completion'],
  ['output_tokens', 'n_output'],
];
/** A model's total over its numbers `w.*`, in doubles: `total_tokens || prompt + completion`, as the UI. */
const MODEL_TOTAL =
  'CASE WHEN w.n_total <> 0 THEN w.n_total ELSE (w.n_prompt + w.n_input) + (w.n_completion + w.n_output) END';

/**
 * The models' totals summed left to right in JavaScript's key order (js-key-order.ts), as the UI adds
 * them: `sum(x, order)` is the store's ordered sum.
 */
const derivedTokens = (
  order: [string, string, string],
  num: (key: string) => string,
  models: string,
  sum: (x: string, order: string) => string,
): string => `(SELECT CASE WHEN COUNT(*) > 0 THEN ${sum('v.t', 'v.o1, v.o2, v.o3')} END
  FROM (SELECT w.o1, w.o2, w.o3, ${MODEL_TOTAL} AS t
    FROM (SELECT ${order.map((o, i) => `${o} AS o${i + 1}`).join(', ')}, ${NUMS.map(([key, as]) => `${num(key)} AS ${as}`).join(', ')}
      FROM ${models}) w) v)`;

/**
 * SQLite: each number as a double (JavaScript parses JSON numbers so; SQLite keeps integers exact),
 * summed by `heddle_sum_in_order` (sqlite-dialect.ts): SQLite's `SUM` and `TOTAL` compensate rounding.
 */
export const SQLITE_DERIVED_TOKENS = derivedTokens(
  SQLITE_JS_KEY_ORDER,
  (key) => {
    const at = `'$."${key}"'`;
    return `(CASE WHEN json_type(e.value, ${at}) IN ('integer', 'real') AND abs(json_extract(e.value, ${at})) <= ${MAX_DOUBLE}
      THEN CAST(json_extract(e.value, ${at}) AS REAL) ELSE 0.0 END)`;
  },
  `json_each(c.summary, '$."usage"') e
      WHERE json_type(c.summary, '$."usage"') IN ('object', 'array') AND e.type IN ('object', 'array')`,
  (x, order) => `heddle_sum_in_order(${x} ORDER BY ${order})`,
);

/**
 * PostgreSQL: each number as a double (calls-query/cost.ts `postgresNumber`), summed left to right by
 * float8 `SUM(… ORDER BY …)`. A count above 1e150 in magnitude reads as NaN there (float8 arithmetic
 * would fail past the double range where JavaScript gives Infinity), and the total is then NULL.
 */
const PG_USAGE = `(c.summary -> 'usage')`;
export const POSTGRES_DERIVED_TOKENS = derivedTokens(
  postgresJsKeyOrder('e.key', 'e.ord'),
  (key) => postgresNumber(`(e.value -> '${key}')`),
  `(SELECT o.key, o.value, o.ord FROM jsonb_each(CASE WHEN jsonb_typeof(${PG_USAGE}) = 'object' THEN ${PG_USAGE} ELSE '{}'::jsonb END)
        WITH ORDINALITY o(key, value, ord)
      UNION ALL SELECT (a.ord - 1)::text, a.value, a.ord
        FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${PG_USAGE}) = 'array' THEN ${PG_USAGE} ELSE '[]'::jsonb END)
        WITH ORDINALITY a(value, ord)) e
      WHERE jsonb_typeof(e.value) IN ('object', 'array')`,
  (x, order) => `NULLIF(SUM(${x} ORDER BY ${order}), 'NaN'::float8)`,
);

/**
 * Writes the `call_tokens` entries of the calls `c` matching `where` (the call indexer,
 * call-indexes/text-index.ts, and migration 022). A call whose total is NULL is filed with `is_null = 1` and
 * `tokens = 0`, walked after every call with a total in both directions (a sort puts NULLs last): a
 * flag, not a sentinel value, since any double is a possible total. Entries already there are kept:
 * those of calls whose total changed since are stale, and queries skip them by comparing with the
 * call's total now. (`WHERE 1 = 1`: SQLite would read `ON CONFLICT` after a bare FROM as a join's ON.)
 * `table`: `call_token_roots` (migration 025) takes the same entries of trace roots.
 */
export const insertTokensSql = (tokens: string, from: string, where: string, table = 'call_tokens'): string =>
  `INSERT INTO ${table} (project_id, is_null, tokens, id)
  SELECT k.project_id, CASE WHEN k.t IS NULL THEN 1 ELSE 0 END, COALESCE(k.t, 0), k.id
  FROM (SELECT c.project_id, c.id, ${tokens} AS t FROM ${from} WHERE ${where}) k WHERE 1 = 1
  ON CONFLICT DO NOTHING`;
