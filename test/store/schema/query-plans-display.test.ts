import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import { bindNamed } from '../../../src/store/sqlite/statements.js';
import type { CallsQuery } from '../../../src/store/types.js';
import { sort } from '../contract/parts.js';
import { tempSqliteFile, withSqlite, postgresPlan } from './fresh-schemas.js';

/**
 * The display-name sort (migration 021) walks `call_display` in the page's order and looks each
 * entry's call up by key: a change to the schema or the compiler that loses the walk fails here
 * instead of making the sort read every call of the project (docs/query-performance.md "The
 * display-name sort off the commit path").
 */
const query = (direction: 'asc' | 'desc', idDirection: 'asc' | 'desc' | null, rootsOnly: boolean): CallsQuery => ({
  project_id: 'acme/demo',
  sort_by: sort([
    { field: 'display_name', direction },
    ...(idDirection === null ? [] : [{ field: 'id', direction: idDirection }]),
  ]),
  filter: rootsOnly ? { trace_roots_only: true } : undefined,
  limit: 100,
});

const SHAPES: Array<[CallsQuery, string]> = [
  // the traces page's sorts: the default tie-break is id DESC, against an ascending name
  [query('asc', null, true), 'call_display_by_id_desc'],
  [query('desc', null, true), 'PRIMARY KEY'],
  [query('asc', null, false), 'call_display_by_id_desc'],
  [query('asc', 'asc', false), 'PRIMARY KEY'],
  [query('desc', 'asc', false), 'call_display_by_id_desc'],
];

test('SQLite: the display-name sort walks call_display and looks the candidates up by key', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  await store.close();
  const lookup =
    'CORRELATED SCALAR SUBQUERY \\d+\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)';
  for (const [q, index] of SHAPES) {
    const compiled = compileCallsSelect(q, sqliteDialect, true);
    const plan = withSqlite(file, (db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(bindNamed(compiled.params)) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n'),
    );
    const using = index === 'PRIMARY KEY' ? 'PRIMARY KEY' : `COVERING INDEX ${index}`;
    // whole names along the key in the page's order, no sort of them
    assert.match(
      plan,
      new RegExp(`SEARCH l USING ${using} \\(project_id=\\? AND kind=\\?\\)\n${lookup}\nSCAN e\n`),
      plan,
    );
    // NULL names along id within their key, no sort of them
    assert.match(
      plan,
      new RegExp(
        `SEARCH l USING (?:PRIMARY KEY|COVERING INDEX \\w+) \\(project_id=\\? AND kind=\\? AND display_key=\\?\\)\n${lookup}\nSCAN e\n`,
      ),
      plan,
    );
    // names cut to the key along it, sorted only within one key
    assert.match(plan, /USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY\nSCAN k\n/, plan);
    assert.match(plan, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(plan, /\nSCAN k\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \(project_id=\? AND id=\?\)\n/);
    assert.doesNotMatch(plan, /SCAN (c|l|t)\b/);
    assert.doesNotMatch(plan, /calls_by_(start|op)/);
  }
});

test('PostgreSQL: the display-name sort walks call_display', async (t) => {
  // the traces page's two sorts (empty tables, alternatives forbidden)
  const walks: Array<[CallsQuery, RegExp]> = [
    [SHAPES[0]![0], /Index Only Scan using call_display_by_id_desc on call_display l /],
    [SHAPES[1]![0], /Index Only Scan Backward using call_display_pkey on call_display l /],
  ];
  for (const [q, whole] of walks) {
    const plan = await postgresPlan(t, compileCallsSelect(q, postgresDialect, true));
    if (plan === null) return t.skip('PostgreSQL unavailable');
    assert.match(plan, whole, plan);
    // the cut names sorted only within one key, by the current name in the column's collation
    assert.match(
      plan,
      /Incremental Sort .*\n\s+Sort Key: l_1\.display_key COLLATE "C".*\(\(SubPlan 2\)\) COLLATE "C"/,
      plan,
    );
    assert.match(plan, /Presorted Key: l_1\.display_key/);
    assert.match(plan, /on call_display l_2 .*\n\s+Index Cond: .*\(kind = 2\) AND \(display_key = ''::text\)\)/, plan);
    assert.match(plan, /calls_by_change/);
    assert.doesNotMatch(plan, /Seq Scan/);
  }
});
