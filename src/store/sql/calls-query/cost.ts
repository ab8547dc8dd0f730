import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseIsoMicros } from '../../../domain/time.js';
import { postgresJsKeyOrder, SQLITE_JS_KEY_ORDER } from '../js-key-order.js';
import type { SqlParams } from '../core/sql-dialect.js';

/**
 * `summary.weave.total_cost` (docs/spec/calls.md §5.2, a query-only field): the call's cost exactly
 * as the web UI's `totalCost(call)` computes it (web/src/lib/call.ts) from the `summary.weave.costs`
 * the server returns (src/services/call-extras.ts, src/domain/costs.ts, src/domain/llm-usage.ts),
 * computed in SQL at query time from the project's prices (no index: prices can change after the
 * call). test/store/contract/calls-cost.test.ts compares it with those functions on both stores.
 *
 * For each entry of `summary.usage` when that is an object (the models, in the order JavaScript
 * enumerates the keys: array-index keys first, numerically, then the others as written), the price
 * in force (`choosePrice`: effective at or before the start first, project rows before the defaults
 * of src/data/default-prices.json, newest effective date, then the first in the lookup's order:
 * project rows by `created_at, id`, then the defaults in file order); a model without a price has no
 * cost. A model's cost is the sum, left to right, of its four products (`costEntry`), each counted as
 * 0 when not a finite double (the UI's `num`); the call's is the sum of its priced models' costs,
 * left to right, in key order (an ordered aggregate: SQLite's `SUM` compensates rounding, so SQLite
 * uses `heddle_sum_in_order`, sqlite-dialect.ts). NULL when no model has a price.
 *
 * Known difference: on PostgreSQL, whose float8 arithmetic fails on an overflow where JavaScript
 * gives Infinity, a model with a token count or a price above 1e150 in magnitude counts as unpriced
 * (below that bound no sum or product can overflow).
 */

/** The largest finite double. */
const MAX_DOUBLE = '1.7976931348623157e308';
/** PostgreSQL: numbers below this magnitude cannot overflow a product of two or a sum of a few. */
const PG_BOUND = '1e150';

/**
 * PostgreSQL: the JSONB value `v` as `numberOr(v, 0)` reads it (usage numbers, domain/llm-usage.ts;
 * the UI's `num`): a number as a double, anything else 0, and a number past the double range 0 (it
 * parses to Infinity in JavaScript). One past PG_BOUND but in range reads as NaN: float8 arithmetic
 * fails on an overflow where JavaScript's gives Infinity, and NaN fails nothing (callers refuse it).
 */
export const postgresNumber = (v: string): string =>
  `(CASE WHEN jsonb_typeof(${v}) = 'number' THEN CASE WHEN abs((${v})::numeric) <= ${PG_BOUND} THEN (${v})::float8
    WHEN abs((${v})::numeric) <= ${MAX_DOUBLE} THEN 'NaN'::float8 ELSE 0 END ELSE 0 END)`;

interface DefaultPrice {
  llm_id: string;
  effective: number;
  costs: [number, number, number, number];
}

let defaults: DefaultPrice[] | null = null;

/** The built-in prices (the file src/services/price-table.ts `loadDefaultPrices` reads), in file order. */
function defaultPrices(): DefaultPrice[] {
  if (defaults !== null) return defaults;
  const require = createRequire(import.meta.url);
  const file = require('../../../data/default-prices.json') as {
    prices: Array<{
      llm_id: string;
      effective_date: string;
      prompt_token_cost: number;
      completion_token_cost: number;
      cache_read_input_token_cost: number;
      cache_creation_input_token_cost: number;
    }>;
  };
  defaults = file.prices.map((p) => ({
    llm_id: p.llm_id,
    effective: parseIsoMicros(p.effective_date)!,
    costs: [
      p.prompt_token_cost,
      p.completion_token_cost,
      p.cache_read_input_token_cost,
      p.cache_creation_input_token_cost,
    ],
  }));
  return defaults;
}

let stamp: string | null = null;

/**
 * A fingerprint of the built-in prices: the `call_cost` entries (migration 024, call-indexes/cost-entries.ts)
 * record the one they were priced with, so a release with other built-in prices prices them again.
 */
export function defaultPricesStamp(): string {
  stamp ??= createHash('sha256').update(JSON.stringify(defaultPrices())).digest('hex').slice(0, 16);
  return stamp;
}

/** What the cost's SQL needs from each database. */
interface CostDialect {
  /** The double type of a cast. */
  real: string;
  /** The model entries of `c.summary.usage` when it is an object: a FROM clause (and WHERE) naming `e`. */
  models: string;
  /** The three ORDER BY terms of JavaScript's key order over `e`. */
  order: [string, string, string];
  /** The number at `key` of the entry `e` as `usageEntriesOf` reads it (0 unless a finite number). */
  num(key: string): string;
  /** A model's cost, or NULL where an input is out of the store's range. */
  guard(cost: string, inputs: string[]): string;
  /** The ordered sum of `x` over the models (NULLs skipped; NULL when none). */
  sum(x: string, order: string): string;
}

/** The SQL of `summary.weave.total_cost` for the call `c`. */
function derivedCost(cd: CostDialect, p: SqlParams): string {
  const real = (v: number): string => `CAST(${p.add(v)} AS ${cd.real})`;
  const prices = [
    `SELECT 0 AS src, r.pricing_level AS lvl, r.effective_date AS eff, r.created_at AS ca, r.id AS rid,
      r.prompt_token_cost AS pp, r.completion_token_cost AS cp, r.cache_read_input_token_cost AS rp,
      r.cache_creation_input_token_cost AS wp
      FROM llm_token_prices r WHERE r.project_id = c.project_id AND r.llm_id = m.k`,
    ...defaultPrices().map(
      (d, i) =>
        `SELECT 1, 'default', ${p.add(d.effective)}, ${p.add(i)}, '', ${d.costs.map(real).join(', ')}
        WHERE m.k = ${p.add(d.llm_id)}`,
    ),
  ].join(' UNION ALL ');
  // each product counted as 0 unless finite, summed left to right (costEntry, the UI's totalCost)
  const finite = (x: string): string => `(CASE WHEN abs(${x}) <= ${MAX_DOUBLE} THEN ${x} ELSE 0 END)`;
  const cost = `((${finite('((m.np - m.nr) - m.nw) * q.pp')} + ${finite('m.nc * q.cp')}) + ${finite('m.nr * q.rp')}) + ${finite('m.nw * q.wp')}`;
  const inputs = ['m.np', 'm.nc', 'm.nr', 'm.nw', 'q.pp', 'q.cp', 'q.rp', 'q.wp'];
  const priced = `(SELECT ${cd.guard(cost, inputs)} FROM (${prices}) q
    ORDER BY CASE WHEN q.eff <= c.started_at THEN 0 ELSE 1 END, CASE WHEN q.lvl = 'project' THEN 0 ELSE 1 END,
      q.eff DESC, q.src, q.ca, q.rid LIMIT 1)`;
  const [o1, o2, o3] = cd.order;
  return `(SELECT ${cd.sum('v.cost', 'v.o1, v.o2, v.o3')} FROM (SELECT m.o1, m.o2, m.o3, ${priced} AS cost
    FROM (SELECT e.key AS k, ${o1} AS o1, ${o2} AS o2, ${o3} AS o3,
      ${cd.num('prompt_tokens')} + ${cd.num('input_tokens')} AS np,
      ${cd.num('completion_tokens')} + ${cd.num('output_tokens')} AS nc,
      ${cd.num('cache_read_input_tokens')} AS nr, ${cd.num('cache_creation_input_tokens')} AS nw
      FROM ${cd.models}) m) v)`;
}

const SQLITE_COST: CostDialect = {
  real: 'REAL',
  models: `json_each(c.summary, '$."usage"') e WHERE json_type(c.summary, '$."usage"') = 'object'`,
  order: SQLITE_JS_KEY_ORDER,
  num: (key) => {
    const at = `'$."${key}"'`;
    return `(CASE WHEN e.type = 'object' AND json_type(e.value, ${at}) IN ('integer', 'real')
      AND abs(json_extract(e.value, ${at})) <= ${MAX_DOUBLE} THEN CAST(json_extract(e.value, ${at}) AS REAL) ELSE 0.0 END)`;
  },
  guard: (cost) => cost,
  // SQLite's SUM and TOTAL compensate rounding: JavaScript adds left to right
  sum: (x, order) => `heddle_sum_in_order(${x} ORDER BY ${order})`,
};

const PG_USAGE = `(c.summary -> 'usage')`;
const POSTGRES_COST: CostDialect = {
  real: 'float8',
  models: `jsonb_each(CASE WHEN jsonb_typeof(${PG_USAGE}) = 'object' THEN ${PG_USAGE} ELSE '{}'::jsonb END)
    WITH ORDINALITY e(key, value, ord)`,
  order: postgresJsKeyOrder('e.key', 'e.ord'),
  // past the bound a number reads as NaN, which no arithmetic fails on and the guard refuses
  num: (key) => {
    const v = `(e.value -> '${key}')`;
    return postgresNumber(v);
  },
  guard: (cost, inputs) => `CASE WHEN ${inputs.map((x) => `abs(${x}) <= ${PG_GUARD}`).join(' AND ')} THEN ${cost} END`,
  sum: (x, order) => `SUM(${x} ORDER BY ${order})`,
};

/** PostgreSQL: a sum of two numbers under PG_BOUND passes it; a price past this bound is refused too. */
const PG_GUARD = '1e151';

/** `summary.weave.total_cost` of the call `c` on SQLite (`heddle_sum_in_order` is sqlite-dialect.ts's). */
export const sqliteDerivedCost = (p: SqlParams): string => derivedCost(SQLITE_COST, p);
/** `summary.weave.total_cost` of the call `c` on PostgreSQL. */
export const postgresDerivedCost = (p: SqlParams): string => derivedCost(POSTGRES_COST, p);

/**
 * The generation of the project `project` (a placeholder) that a walk may read, or NULL (a scalar
 * subquery): complete and priced with the built-in prices `stamp` (a placeholder).
 */
export const currentCostGen = (project: string, stamp: string): string =>
  `(SELECT g.gen FROM call_cost_gens g WHERE g.project_id = ${project} AND g.rebuilt_after IS NULL AND g.prices = ${stamp})`;
