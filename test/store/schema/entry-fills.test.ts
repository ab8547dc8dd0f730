import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { compactParams } from '../../../src/store/postgres/pg-support.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-query/names.js';
import { compileCallsCount, compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import type { CompiledSql } from '../../../src/store/sql/core/sql-tag.js';
import type { SqlDialect } from '../../../src/store/sql/core/sql-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { bindNamed } from '../../../src/store/sqlite/statements.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { end, indexAll, sort, start, where } from '../contract/parts.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * The background fills of the call indexer's entries (src/store/sql/call-indexes/entry-fills.ts: those of
 * migrations 019–022, 025, 026 and 028–030, and the `call_values` leaves of outputs and attributes) on a store whose calls were indexed before the migration that
 * added them: no entry, no fill row. The compiler is told every fill is done throughout (a stale
 * hint, as `pendingFills` may give for a second), so every page here rests on the statement's own
 * check of `call_entry_fills`: before the fill begins, a step at a time while it runs (renames
 * meanwhile), and once it is done, each page equals the plain query's ids cut to it (and a status
 * count the plain count); then every call has its entry.
 */
const P = 'acme/names';
const T0 = 1_700_000_000_000_000;
const LONG = 'N'.repeat(DISPLAY_KEY_CHARS);
const HINTED = { backfilled: true, covered: true };
const PAGES = [
  [1, 0],
  [3, 2],
  [5, 7],
  [40, 0],
] as const;
const bothWays = (field: string, extra: Partial<CallsQuery> = {}): CallsQuery[] =>
  (['asc', 'desc'] as const).map((direction) => ({ project_id: P, sort_by: sort([{ field, direction }]), ...extra }));
const ROOTS = { filter: { trace_roots_only: true } };
const equal = (field: string, value: string): Partial<CallsQuery> => ({
  where: where({ $eq: [{ $getField: field }, { $literal: value }] }),
});
const status = (value: string): Partial<CallsQuery> => ({
  where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: value }] }),
});

/** A fill: its name and table, and the queries whose pages walk its entries. */
interface Fill {
  name: string;
  table: string;
  /** Its entries, where the table holds others too (default: the whole table). */
  only?: string;
  queries: CallsQuery[];
  /** Status filters whose capped counts read the entries too. */
  counts?: CallsQuery[];
}

const FILLS: Fill[] = [
  { name: 'latency', table: 'call_latency', queries: bothWays('summary.weave.latency_ms') },
  { name: 'latency_roots', table: 'call_latency_roots', queries: bothWays('summary.weave.latency_ms', ROOTS) },
  {
    name: 'status',
    table: 'call_status',
    queries: [
      ...bothWays('summary.weave.status'),
      ...bothWays('started_at', status('success')),
      ...bothWays('started_at', status('error')),
    ],
    counts: [status('success'), status('running')].map((w) => ({ project_id: P, ...w })),
  },
  {
    name: 'status_roots',
    table: 'call_status_roots',
    queries: [
      ...bothWays('summary.weave.status', ROOTS),
      ...bothWays('started_at', { ...status('success'), ...ROOTS }),
      ...bothWays('started_at', { ...status('error'), ...ROOTS }),
    ],
    counts: [status('success'), status('running')].map((w) => ({ project_id: P, ...w, ...ROOTS })),
  },
  { name: 'display', table: 'call_display', queries: bothWays('display_name') },
  { name: 'tokens', table: 'call_tokens', queries: bothWays('summary.weave.total_tokens') },
  { name: 'token_roots', table: 'call_token_roots', queries: bothWays('summary.weave.total_tokens', ROOTS) },
  {
    name: 'trace_names',
    table: 'call_trace_names',
    queries: [...bothWays('summary.weave.trace_name'), ...bothWays('summary.weave.trace_name', ROOTS)],
  },
  { name: 'op_names', table: 'call_op_names', queries: [...bothWays('op_name'), ...bothWays('op_name', ROOTS)] },
  {
    name: 'output_values',
    table: 'call_values',
    only: "path LIKE 'output%'",
    queries: [...bothWays('started_at', equal('output.label', 'spam')), ...bothWays('id', equal('output.m.top', 'b'))],
  },
  {
    name: 'attribute_values',
    table: 'call_values',
    only: "path LIKE 'attributes%'",
    queries: [
      ...bothWays('started_at', equal('attributes.env', 'prod')),
      ...bothWays('id', equal('attributes.app.v', 'v2')),
    ],
  },
];

/** Calls of every kind the entries tell apart: names, ops, roots and children, ends, errors, usage. */
function fixture(): CallPart[] {
  const names = [null, '', 'b', 'a', `${LONG}z`, `${LONG}y`, 'a', null];
  const ops: Array<[string, string | null]> = [
    ['weave:///acme/names/op/predict:abc', 'predict'],
    ['plain_op', null],
    ['weave:///acme/names/op/long:abc', `${LONG}op`],
  ];
  const parts: CallPart[] = [];
  for (let i = 0; i < 30; i++) {
    const id = `f-${String(i).padStart(2, '0')}`;
    const [op_name, op_display_name] = ops[i % ops.length]!;
    const display_name = names[i % names.length]!;
    const parent_id = i % 3 === 2 ? 'f-00' : null;
    const attributes = JSON.stringify({ env: i % 2 === 1 ? 'prod' : 'dev', app: { v: `v${i % 3}` } });
    parts.push(start(P, id, { op_name, op_display_name, display_name, parent_id, started_at: T0 + i, attributes }));
    const usage = i % 5 === 1 ? {} : { usage: { m: { prompt_tokens: (i * 7) % 11, completion_tokens: i % 3 } } };
    const output = JSON.stringify(
      i % 7 === 6 ? 'spam' : { label: i % 3 === 1 ? 'ham' : 'spam', m: { top: 'ab'[i % 2] } },
    );
    const ended = { ended_at: T0 + i + ((i * 13) % 7) * 1_000, summary: JSON.stringify(usage), output };
    if (i % 4 !== 0) parts.push(end(P, id, { ...ended, exception: i % 6 === 1 ? 'boom' : null }));
  }
  return parts;
}

type Rows = (c: CompiledSql) => Promise<Array<Record<string, unknown>>>;

/** Every page of every query of `fill`, compiled with the fills hinted done, equals the plain query's ids cut to it. */
async function samePages(fill: Fill, d: SqlDialect, rows: Rows, what: string): Promise<void> {
  const runSql = async (c: CompiledSql): Promise<string[]> => (await rows(c)).map((r) => String(r.id));
  const count = async (c: CompiledSql): Promise<number> => Number((await rows(c))[0]!.count);
  const table = new RegExp(`${fill.table}\\b`);
  for (const q of fill.queries) {
    const all = await runSql(compileCallsSelect(q, d, false));
    assert.ok(all.length > 5, JSON.stringify(q));
    for (const [limit, offset] of PAGES) {
      const compiled = compileCallsSelect({ ...q, limit, offset }, d, HINTED);
      assert.match(compiled.sql, table);
      assert.deepEqual(await runSql(compiled), all.slice(offset, offset + limit), JSON.stringify({ what, q, limit }));
    }
  }
  for (const q of fill.counts ?? []) {
    const all = await count(compileCallsCount(q, d, false));
    assert.ok(all > 1, JSON.stringify(q));
    for (const limit of [1, 4, 100]) {
      const compiled = compileCallsCount({ ...q, limit }, d, HINTED);
      assert.match(compiled.sql, table);
      assert.equal(await count(compiled), Math.min(all, limit + 1), JSON.stringify({ what, q, limit }));
    }
  }
}

/** Runs `fill` on a store indexed "before its migration" (its entries and fill rows removed). */
async function fillChecks(fill: Fill, store: TraceStore, d: SqlDialect, runSql: Rows, exec: Exec): Promise<void> {
  await exec(
    `DELETE FROM ${fill.table} WHERE ${fill.only ?? '1 = 1'}; DELETE FROM call_entry_fills WHERE entries = '${fill.name}'`,
  );
  await samePages(fill, d, runSql, 'no fill row');
  let steps = 0;
  for (;;) {
    const step = await store.callText.step(4);
    if (step.project === null) break;
    steps += 1;
    await samePages(fill, d, runSql, `step ${steps}`);
    // renamed and ended again while the fill runs: the call is after the mark until the indexer writes it again
    if (steps === 3)
      await store.calls.write([
        { kind: 'update', project_id: P, id: 'f-29', display_name: 'aa' },
        { kind: 'update', project_id: P, id: 'f-01', display_name: '' },
        end(P, 'f-04', { ended_at: T0 + 9_000, exception: 'late', summary: '{"usage":{"m":{"total_tokens":3}}}' }),
      ]);
  }
  // a row, then 30 calls at 4 a step (the last step finds fewer), and the indexer's step of the rewrites
  assert.ok(steps >= 9, String(steps));
  await samePages(fill, d, runSql, 'filled');
  assert.equal(await store.callText.pendingFills(P).then((pending) => pending.includes(fill.name)), false);
}

/** Every fill in turn on one store: the fixture written and indexed first. */
async function everyFill(store: TraceStore, d: SqlDialect, runSql: Rows, exec: Exec, count: Count): Promise<void> {
  await store.calls.write(fixture());
  await indexAll(store);
  for (const fill of FILLS) {
    const entries =
      fill.only === undefined
        ? `SELECT COUNT(DISTINCT id) AS n FROM ${fill.table}`
        : `SELECT COUNT(*) AS n FROM ${fill.table} WHERE ${fill.only}`;
    const before = await count(entries);
    await fillChecks(fill, store, d, runSql, exec);
    assert.equal(await count(entries), before, fill.name);
    assert.equal(
      await count(`SELECT COUNT(*) AS n FROM call_entry_fills WHERE entries = '${fill.name}' AND filled_after IS NULL`),
      1,
    );
  }
}

type Exec = (sql: string) => Promise<void>;
type Count = (sql: string) => Promise<number>;

test('SQLite: every fill writes its entries, and the walks are exact meanwhile', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  try {
    await everyFill(
      store,
      sqliteDialect,
      async (c) =>
        withSqlite(file, (db) => db.prepare(c.sql).all(bindNamed(c.params)) as Array<Record<string, unknown>>),
      async (sql) => withSqlite(file, (db) => void db.exec(sql)),
      async (sql) => withSqlite(file, (db) => Number((db.prepare(sql).get() as { n: number }).n)),
    );
  } finally {
    await store.close();
  }
});

test('PostgreSQL: every fill writes its entries, and the walks are exact meanwhile', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return t.skip('PostgreSQL unavailable');
  const store = new PostgresStore({ url });
  await store.migrate();
  try {
    await everyFill(
      store,
      postgresDialect,
      async (c) =>
        withPostgres(url, async (client) => {
          const { text, values } = compactParams(c.sql, c.params);
          return (await client.query(text, values)).rows;
        }),
      async (sql) => withPostgres(url, async (client) => void (await client.query(sql))),
      async (sql) => withPostgres(url, async (client) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n)),
    );
  } finally {
    await store.close();
  }
});
