import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { compactParams } from '../../../src/store/postgres/pg-support.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-display.js';
import { compileCallsSelect, type CompiledSql } from '../../../src/store/sql/calls-select.js';
import type { SqlDialect } from '../../../src/store/sql/sql-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { bindNamed } from '../../../src/store/sqlite/statements.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { end, fillDone, indexAll, sort, start } from '../contract/parts.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * The background fill of the trace-name entries (migration 026, src/store/sql/call-entry-fills.ts)
 * on a store whose calls were indexed before 026: no entry, no fill row. The compiler is told the
 * fill is complete throughout (a stale hint, as `pendingFills` may give for a second), so every
 * page here rests on the statement's own check of `call_entry_fills`: before the fill begins,
 * a step at a time while it runs (renames meanwhile), and once it is done, each page equals the
 * plain query's ids cut to it; then every call has its entry.
 */
const P = 'acme/names';
const T0 = 1_700_000_000_000_000;
const LONG = 'N'.repeat(DISPLAY_KEY_CHARS);
const HINTED = { backfilled: true, covered: true };
const FIELD = 'summary.weave.trace_name';
const QUERIES: CallsQuery[] = (['asc', 'desc'] as const).flatMap((direction) => [
  { project_id: P, sort_by: sort([{ field: FIELD, direction }]) },
  { project_id: P, sort_by: sort([{ field: FIELD, direction }]), filter: { trace_roots_only: true } },
]);
const PAGES = [
  [1, 0],
  [3, 2],
  [5, 7],
  [40, 0],
] as const;

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
    parts.push(start(P, id, { op_name, op_display_name, display_name, parent_id, started_at: T0 + i }));
    if (i % 4 !== 0) parts.push(end(P, id, { ended_at: T0 + i + 1_000 }));
  }
  return parts;
}

type Run = (c: CompiledSql) => Promise<string[]>;

/** Every page of every query, compiled with the fill hinted complete, equals the plain query's ids cut to it. */
async function samePages(d: SqlDialect, runSql: Run, what: string): Promise<void> {
  for (const q of QUERIES) {
    const all = await runSql(compileCallsSelect(q, d, false));
    assert.ok(all.length > 10);
    for (const [limit, offset] of PAGES) {
      const compiled = compileCallsSelect({ ...q, limit, offset }, d, HINTED);
      assert.match(compiled.sql, /call_trace_names/);
      assert.deepEqual(await runSql(compiled), all.slice(offset, offset + limit), JSON.stringify({ what, q, limit }));
    }
  }
}

/** Runs the fill on a store indexed "before 026" (entries and fill rows removed by `forget`). */
async function fillChecks(
  store: TraceStore,
  d: SqlDialect,
  runSql: Run,
  exec: (sql: string) => Promise<void>,
  count: (sql: string) => Promise<number>,
): Promise<void> {
  await store.calls.write(fixture());
  await indexAll(store);
  await exec("DELETE FROM call_trace_names; DELETE FROM call_entry_fills WHERE entries = 'trace_names'");
  await samePages(d, runSql, 'no fill row');
  let steps = 0;
  for (;;) {
    const step = await store.callText.step(4);
    if (step.project === null) break;
    steps += 1;
    await samePages(d, runSql, `step ${steps}`);
    // renamed while the fill runs: the call is after the mark until the indexer writes it again
    if (steps === 3)
      await store.calls.write([
        { kind: 'update', project_id: P, id: 'f-29', display_name: 'aa' },
        { kind: 'update', project_id: P, id: 'f-01', display_name: '' },
      ]);
  }
  // a row, then 30 calls at 4 a step (the last step finds fewer), and the indexer's step of the renames
  assert.ok(steps >= 9, String(steps));
  await samePages(d, runSql, 'filled');
  assert.equal(
    await count(`SELECT COUNT(*) AS n FROM call_entry_fills WHERE entries = 'trace_names' AND filled_after IS NULL`),
    1,
  );
  assert.equal(await count(`SELECT COUNT(DISTINCT id) AS n FROM call_trace_names`), 30);
  assert.equal(await fillDone(store, P, 'trace_names'), true);
}

test('SQLite: the trace-name fill writes every entry, and the sort is exact meanwhile', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  try {
    await fillChecks(
      store,
      sqliteDialect,
      async (c) =>
        withSqlite(file, (db) => (db.prepare(c.sql).all(bindNamed(c.params)) as { id: string }[]).map((r) => r.id)),
      async (sql) => withSqlite(file, (db) => void db.exec(sql)),
      async (sql) => withSqlite(file, (db) => Number((db.prepare(sql).get() as { n: number }).n)),
    );
  } finally {
    await store.close();
  }
});

test('PostgreSQL: the trace-name fill writes every entry, and the sort is exact meanwhile', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return t.skip('PostgreSQL unavailable');
  const store = new PostgresStore({ url });
  await store.migrate();
  try {
    await fillChecks(
      store,
      postgresDialect,
      async (c) =>
        withPostgres(url, async (client) => {
          const { text, values } = compactParams(c.sql, c.params);
          return (await client.query<{ id: string }>(text, values)).rows.map((r) => r.id);
        }),
      async (sql) => withPostgres(url, async (client) => void (await client.query(sql))),
      async (sql) => withPostgres(url, async (client) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n)),
    );
  } finally {
    await store.close();
  }
});
