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
 * The trace-name sort (migration 026) and the op-name sort (migration 029) walk their entries
 * (`call_trace_names`, `call_op_names`) in the page's order and look each entry's call up by key, as
 * the display-name sort walks `call_display` (query-plans-display.test.ts; all are calls-query/names.ts
 * `nameCandidates`), and test the project's fill once, before any call is read: a change to the schema
 * or the compiler that loses a walk fails here instead of making the sort read (or, along
 * `calls_by_op`, sort) every call (docs/query-performance.md "The trace-name sort off the commit
 * path", "The op-name sort").
 */
const FILLED = { backfilled: true, covered: true };
const NAMES = [
  { field: 'summary.weave.trace_name', table: 'call_trace_names' },
  { field: 'op_name', table: 'call_op_names' },
] as const;
type Name = (typeof NAMES)[number];
const query = (
  name: Name,
  direction: 'asc' | 'desc',
  idDirection: 'asc' | 'desc' | null,
  rootsOnly: boolean,
): CallsQuery => ({
  project_id: 'acme/demo',
  sort_by: sort([
    { field: name.field, direction },
    ...(idDirection === null ? [] : [{ field: 'id', direction: idDirection }]),
  ]),
  filter: rootsOnly ? { trace_roots_only: true } : undefined,
  limit: 100,
});

const shapes = (name: Name): Array<[CallsQuery, string]> => [
  // the traces page's sorts: the default tie-break is id DESC, against an ascending name
  [query(name, 'asc', null, true), `${name.table}_by_id_desc`],
  [query(name, 'desc', null, true), 'PRIMARY KEY'],
  [query(name, 'asc', null, false), `${name.table}_by_id_desc`],
  [query(name, 'asc', 'asc', false), 'PRIMARY KEY'],
  [query(name, 'desc', 'asc', false), `${name.table}_by_id_desc`],
];

test('SQLite: the trace-name and op-name sorts walk their entries and look the candidates up by key', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  await store.close();
  const lookup =
    'CORRELATED SCALAR SUBQUERY \\d+\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \\(project_id=\\? AND id=\\?\\)';
  for (const [q, index] of NAMES.flatMap(shapes)) {
    const compiled = compileCallsSelect(q, sqliteDialect, FILLED);
    const plan = withSqlite(file, (db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(bindNamed(compiled.params)) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n'),
    );
    const using = index === 'PRIMARY KEY' ? 'PRIMARY KEY' : `COVERING INDEX ${index}`;
    // whole names along the key in the page's order, no sort of them
    assert.match(
      plan,
      new RegExp(`SEARCH l USING ${using} \\(project_id=\\? AND root=\\? AND kind=\\?\\)\n${lookup}\nSCAN e\n`),
      plan,
    );
    // NULL names along id within their key, no sort of them
    assert.match(
      plan,
      new RegExp(
        `SEARCH l USING (?:PRIMARY KEY|COVERING INDEX \\w+) \\(project_id=\\? AND root=\\? AND kind=\\? AND name_key=\\?\\)\n${lookup}\nSCAN e\n`,
      ),
      plan,
    );
    // names cut to the key along it, sorted only within one key
    assert.match(plan, /USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY\nSCAN k\n/, plan);
    assert.match(plan, /SEARCH t USING COVERING INDEX calls_by_change \(project_id=\? AND change_seq>\?\)/);
    assert.match(plan, /\nSCAN k\nSEARCH c USING INDEX sqlite_autoindex_calls_1 \(project_id=\? AND id=\?\)\n/);
    // every call while the fill is not complete: the fill row read by key, in a one-row gate
    assert.match(
      plan,
      /SEARCH f USING INDEX sqlite_autoindex_call_entry_fills_1 \(project_id=\? AND entries=\?\)/,
      plan,
    );
    assert.doesNotMatch(plan, /SCAN (c|l|t)\b/);
    assert.doesNotMatch(plan, /calls_by_(start|op)/);
  }
});

test('PostgreSQL: the trace-name and op-name sorts walk their entries', async (t) => {
  // the traces page's two sorts (empty tables, alternatives forbidden)
  const walks = NAMES.flatMap((name): Array<[CallsQuery, RegExp, string]> => [
    [shapes(name)[0]![0], new RegExp(`Index Only Scan using ${name.table}_by_id_desc on ${name.table} l `), name.table],
    [
      shapes(name)[1]![0],
      new RegExp(`Index Only Scan Backward using ${name.table}_pkey on ${name.table} l `),
      name.table,
    ],
  ]);
  for (const [q, whole, table] of walks) {
    const plan = await postgresPlan(t, compileCallsSelect(q, postgresDialect, FILLED));
    if (plan === null) return t.skip('PostgreSQL unavailable');
    assert.match(plan, whole, plan);
    // the cut names sorted only within one key, by the current name in the column's collation
    assert.match(
      plan,
      /Incremental Sort .*\n\s+Sort Key: l_1\.name_key COLLATE "C".*\(\(SubPlan 2\)\) COLLATE "C"/,
      plan,
    );
    assert.match(plan, /Presorted Key: l_1\.name_key/);
    assert.match(
      plan,
      new RegExp(`on ${table} l_2 .*\\n\\s+Index Cond: .*\\(kind = 2\\) AND \\(name_key = ''::text\\)\\)`),
      plan,
    );
    assert.match(plan, /calls_by_change/);
    // every call only while the fill is not complete: the fill row read once, before any call
    assert.match(plan, /One-Time Filter: \(NOT \(InitPlan \d+\)\.col1\)|One-Time Filter: \(NOT \$\d+\)/, plan);
    assert.match(plan, /call_entry_fills_pkey/, plan);
    assert.doesNotMatch(plan, /Seq Scan/);
  }
});
