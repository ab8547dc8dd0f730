import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { compactParams } from '../../../src/store/postgres/pg-support.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import { bindNamed } from '../../../src/store/sqlite/statements.js';
import type { CallsQuery } from '../../../src/store/types.js';
import { sort } from '../contract/parts.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * The token sort walks `call_tokens` (migration 022; src/store/sql/calls-query/tokens-sort.ts) along its
 * key on both stores, so a change to the schema or the compiler that loses the walk fails here
 * (as query-plans.test.ts does for the latency sort) instead of making the traces table slow.
 */
const byTokens = (direction: 'asc' | 'desc'): CallsQuery => ({
  project_id: 'acme/demo',
  sort_by: sort([{ field: 'summary.weave.total_tokens', direction }]),
  limit: 100,
});

test('SQLite: the token sort walks call_tokens along its key, both halves, and the tail', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  await store.close();
  for (const direction of ['desc', 'asc'] as const) {
    const c = compileCallsSelect(byTokens(direction), sqliteDialect, true);
    const plan = withSqlite(file, (db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(bindNamed(c.params)) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n'),
    );
    const lookup = 'SEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)';
    // the totals, then the NULL half (tokens = 0, in id order), each call looked up by key in a scalar subquery
    const entry = 'CORRELATED SCALAR SUBQUERY \\d+\\n';
    assert.match(
      plan,
      new RegExp(`SEARCH l USING PRIMARY KEY \\(project_id=\\? AND is_null=\\?\\)\\n${entry}${lookup}`),
    );
    assert.match(
      plan,
      new RegExp(`SEARCH l USING PRIMARY KEY \\(project_id=\\? AND is_null=\\? AND tokens=\\?\\)\\n${entry}${lookup}`),
    );
    assert.match(plan, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(plan, new RegExp(`^${lookup}\\nLIST SUBQUERY`));
    assert.doesNotMatch(plan, /SCAN (c|l|t)\b/);
    // a sort of the entries' ties by id at most (ascending tokens, descending id), and of one call's
    // models for the ordered sum (calls-query/tokens.ts), never of the project
    assert.doesNotMatch(plan, /TEMP B-TREE FOR (?!ORDER BY$|LAST TERM OF ORDER BY$|heddle_sum_in_order\(ORDER BY\)$)/m);
    // the only full sort is of the candidates (the last line)
    const fullSorts = plan.split('\n').filter((line) => line === 'USE TEMP B-TREE FOR ORDER BY');
    assert.equal(fullSorts.length, 1, plan);
  }
});

test('PostgreSQL: the token sort walks call_tokens, sorting only its candidates', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return t.skip('PostgreSQL unavailable');
  const store = new PostgresStore({ url });
  await store.migrate();
  await store.close();
  const c = compileCallsSelect(byTokens('desc'), postgresDialect, true);
  // an empty table: forbid the alternatives so the plan shows whether the index can give the order
  const plan = await withPostgres(url, async (client) => {
    await client.query('SET enable_seqscan = off; SET enable_sort = off');
    const { text, values } = compactParams(c.sql, c.params);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
  assert.match(plan, /Index Only Scan Backward using call_tokens_pkey on call_tokens l /, plan);
  assert.match(
    plan,
    /Index Only Scan Backward using call_tokens_pkey on call_tokens l_1 \s.*\n\s+Index Cond: .*\(is_null = 1\) AND \(tokens = /,
  );
  assert.match(plan, /calls_by_change/);
  assert.doesNotMatch(plan, /Seq Scan/);
  // only the candidates are sorted: the Sort sits above the semi-join with them
  assert.match(plan, /Sort Key: \(\(SubPlan \d+\)\) DESC NULLS LAST[^\n]*\n\s+-> {2}Nested Loop Semi Join/);
});
