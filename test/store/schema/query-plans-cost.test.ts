import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallsQuery } from '../../../src/store/types.js';
import { sort } from '../contract/parts.js';
import { postgresPlan, sqlitePlanner } from './fresh-schemas.js';

/**
 * The cost sort walks `call_cost` (migration 024; src/store/sql/calls-query/tokens-sort.ts `costSortIds`)
 * along its key, in the generation `call_cost_gens` names, on both stores; the branch that reads every
 * call while a generation is written is tested once, not per call (a one-time filter).
 */
const byCost = (direction: 'asc' | 'desc', rootsOnly = false): CallsQuery => ({
  project_id: 'acme/demo',
  sort_by: sort([{ field: 'summary.weave.total_cost', direction }]),
  limit: 100,
  ...(rootsOnly ? { filter: { trace_roots_only: true } } : {}),
});

test('SQLite: the cost sort walks call_cost along its key in one generation', async (t) => {
  const planOf = await sqlitePlanner(t);
  for (const direction of ['desc', 'asc'] as const) {
    const plan = planOf(compileCallsSelect(byCost(direction), sqliteDialect, true));
    const gen = 'SCALAR SUBQUERY \\d+\\nSEARCH g USING INDEX sqlite_autoindex_call_cost_gens_1 \\(project_id=\\?\\)';
    const lookup =
      'CORRELATED SCALAR SUBQUERY \\d+\\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)';
    // the costs, then the NULL half (cost = 0, in id order), each call looked up by key
    assert.match(
      plan,
      new RegExp(`SEARCH l USING PRIMARY KEY \\(project_id=\\? AND gen=\\? AND is_null=\\?\\)\\n${gen}\\n${lookup}`),
      plan,
    );
    assert.match(
      plan,
      new RegExp(
        `SEARCH l USING PRIMARY KEY \\(project_id=\\? AND gen=\\? AND is_null=\\? AND cost=\\?\\)\\n${gen}\\n${lookup}`,
      ),
    );
    assert.match(plan, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.doesNotMatch(plan, /SCAN (c|l|t)\b/);
    // a sort of the entries' ties by id, of one call's prices, of its models for the ordered sum, and of the candidates
    assert.doesNotMatch(plan, /TEMP B-TREE FOR (?!ORDER BY$|LAST TERM OF ORDER BY$|heddle_sum_in_order\(ORDER BY\)$)/m);
    assert.doesNotMatch(plan, /call_cost_roots/);
    // the traces page's roots only: the roots' entries alone
    const rootsPlan = planOf(compileCallsSelect(byCost(direction, true), sqliteDialect, true));
    assert.match(
      rootsPlan,
      /SEARCH l USING COVERING INDEX call_cost_roots \(project_id=\? AND gen=\? AND is_null=\?\)/,
    );
    assert.match(
      rootsPlan,
      /SEARCH l USING COVERING INDEX call_cost_roots \(project_id=\? AND gen=\? AND is_null=\? AND cost=\?\)/,
    );
  }
});

test('PostgreSQL: the cost sort walks call_cost, reading every call only under a one-time filter', async (t: TestContext) => {
  const explain = (q: CallsQuery): Promise<string | null> =>
    postgresPlan(t, compileCallsSelect(q, postgresDialect, true));
  const plan = await explain(byCost('desc'));
  if (plan === null) return t.skip('PostgreSQL unavailable');
  assert.match(plan, /Index Only Scan Backward using call_cost_pkey on call_cost l /, plan);
  assert.match(
    plan,
    /Index Only Scan Backward using call_cost_pkey on call_cost l_1 \s.*\n\s+Index Cond: .*\(is_null = 1\) AND \(cost = /,
  );
  assert.match(plan, /calls_by_change/);
  assert.match(plan, /One-Time Filter: \(\(InitPlan \d+\)\.col1 IS NULL\)|One-Time Filter: \(\$\d+ IS NULL\)/);
  assert.doesNotMatch(plan, /Seq Scan/);
  const rootsPlan = (await explain(byCost('desc', true)))!;
  assert.match(rootsPlan, /Index Only Scan Backward using call_cost_roots on call_cost l /, rootsPlan);
  assert.match(rootsPlan, /Index Only Scan Backward using call_cost_roots on call_cost l_1 /, rootsPlan);
});
