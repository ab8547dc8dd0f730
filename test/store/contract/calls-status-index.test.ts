import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCallsCount, compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { POSTGRES_DERIVED_STATUS, SQLITE_DERIVED_STATUS } from '../../../src/store/sql/calls-query/status.js';
import { SQL_BUDGET, SqlParams, type SqlDialect } from '../../../src/store/sql/core/sql-dialect.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { assertPagesOfRows, end, ids, indexAll, sort, start, where, assertPagesCut } from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * A query filtered by `summary.weave.status` and sorted by start, or sorted by status, with a limit
 * reads its page's candidates from `call_status` (migration 020), which the call indexer fills, plus
 * the calls after the project's mark (calls-query/select.ts `statusIds`). Each check compares every page
 * (both directions, offsets, other filters beside the status) with the same query without a limit,
 * which keeps the plan that orders every matching call, cut to the page: before the indexer ran,
 * part way, when done, and after ends of running calls, errors, descendant errors, deletions and
 * starts sent again with another `started_at`.
 */
const status = { $getField: 'summary.weave.status' };
const isStatus = (value: string): unknown => ({ $eq: [status, { $literal: value }] });
const FILTERS: Array<Partial<CallsQuery>> = [
  {},
  { where: where(isStatus('success')) },
  { where: where(isStatus('error')) },
  { where: where({ $eq: [{ $literal: 'running' }, status] }) },
  { where: where(isStatus('descendant_error')) },
  { where: where({ $in: [status, [{ $literal: 'error' }, { $literal: 'descendant_error' }, { $literal: 'x' }]] }) },
  { where: where(isStatus('nothing')) },
  { where: where(isStatus('success')), filter: { op_names: ['weave:///acme/demo/op/other:abc'] } },
  { where: where(isStatus('error')), filter: { trace_roots_only: true }, started_from: 1_700_000_006_000_000 },
  {
    where: where({
      $and: [
        { $gte: [{ $getField: 'started_at' }, { $literal: 1_700_000_010 }] },
        isStatus('success'),
        { $not: [{ $eq: [{ $getField: 'op_name' }, { $literal: 'weave:///acme/demo/op/other:abc' }] }] },
      ],
    }),
  },
];
const SORTS: Array<Array<{ field: string; direction: 'asc' | 'desc' }> | null> = [
  null,
  [{ field: 'started_at', direction: 'desc' }],
  [{ field: 'started_at', direction: 'asc' }],
  [
    { field: 'started_at', direction: 'desc' },
    { field: 'id', direction: 'asc' },
  ],
  [{ field: 'summary.weave.status', direction: 'asc' }],
  [{ field: 'summary.weave.status', direction: 'desc' }],
  [
    { field: 'summary.weave.status', direction: 'desc' },
    { field: 'id', direction: 'asc' },
  ],
  [
    { field: 'summary.weave.status', direction: 'asc' },
    { field: 'started_at', direction: 'desc' },
  ],
  [
    { field: 'summary.weave.status', direction: 'desc' },
    { field: 'started_at', direction: 'asc' },
    { field: 'id', direction: 'desc' },
  ],
];
const PAGES = [
  [1, 0],
  [3, 0],
  [3, 2],
  [100, 0],
  [2, 17],
] as const;

const query = (p: string, extra: Partial<CallsQuery>, keys: (typeof SORTS)[number]): CallsQuery => ({
  project_id: p,
  ...extra,
  ...(keys === null ? {} : { sort_by: sort(keys) }),
});

forEachAdapter('calls filtered and sorted by status through call_status', (store) => {
  const T0 = 1_700_000_000_000_000;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = async (s: TraceStore, p: string): Promise<number> => {
    let nonEmpty = 0;
    for (const extra of FILTERS) {
      // a capped count (the traces page caps it) against the uncapped one, which scans
      const q: CallsQuery = { project_id: p, ...extra };
      const total = (await s.calls.count(q)).count;
      for (const limit of [1, 3, 100])
        assert.equal((await s.calls.count({ ...q, limit })).count, Math.min(total, limit + 1), JSON.stringify(extra));
      for (const keys of SORTS) {
        nonEmpty += await assertPagesCut(s, query(p, extra, keys), PAGES, { keys, extra });
      }
    }
    return nonEmpty;
  };

  test(
    'ties, running calls, errors, descendant errors, deletions, re-sent starts, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const rnd = rng(20_020);
      // the error count as the SDK writes it, and forms a query reads as a number or not at all
      const errorCounts = [1, '2', 0, 1.5, -1, 'abc', null, '0'];
      const parts: CallPart[] = [];
      // a few distinct starts: many ties, which the id breaks
      const startAt = (i: number): number => T0 + (i % 9) * 1_000_000;
      for (let i = 0; i < 40; i++) {
        const id = `c-${String(i).padStart(2, '0')}`;
        const op = i % 3 === 0 ? 'weave:///acme/demo/op/other:abc' : 'weave:///acme/demo/op/predict:abc';
        const parent = i % 4 === 1 ? 'c-00' : null;
        const kind = Math.floor(rnd() * 4);
        const summary = JSON.stringify({ status_counts: { error: errorCounts[i % errorCounts.length] } });
        const ending = end(p, id, {
          ended_at: startAt(i) + 1_000,
          exception: kind === 0 ? 'boom' : null,
          summary: kind === 1 ? summary : '{}',
        });
        // an end before its start for some: the start comes in a later write
        if (i % 7 === 3) parts.push(ending);
        parts.push(start(p, id, { op_name: op, started_at: startAt(i), parent_id: parent }));
        // a quarter still running
        if (kind !== 3 && i % 7 !== 3) parts.push(ending);
      }
      parts.push(start(other, 'o-1'), end(other, 'o-1', { exception: 'other' }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['c-05', 'c-08'], 1_800_000_000_000_000);

      assert.equal(await s.callText.covers(p), false);
      await samePages(s, p);
      for (let i = 0; i < 3; i++) await s.callText.step(4);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await s.callText.covers(p), true);
      assert.ok((await samePages(s, p)) > 200);

      // after the indexer: running calls end (in success, error, descendant error), ended calls
      // are ended again with another status, starts sent again with another started_at, a new
      // running call, an end before its start, a deletion: their entries go stale
      const changes: CallPart[] = [];
      for (let i = 0; i < 40; i += 3) {
        const id = `c-${String(i).padStart(2, '0')}`;
        const kind = i % 9;
        changes.push(
          end(p, id, {
            ended_at: startAt(i) + 2_000,
            exception: kind === 0 ? 'late' : null,
            summary: kind === 3 ? '{"status_counts":{"error":3}}' : '{"status_counts":{"success":1}}',
          }),
        );
      }
      for (const i of [4, 10, 22, 31]) {
        const id = `c-${String(i).padStart(2, '0')}`;
        changes.push(start(p, id, { started_at: T0 + (i + 50) * 1_000_000, parent_id: null }));
      }
      changes.push(start(p, 'new-1', { started_at: startAt(2) }), end(p, 'new-late', { exception: 'late' }));
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['c-11'], 1_800_000_000_000_000);
      await samePages(s, p);
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await samePages(s, p);
      await s.calls.write([
        start(p, 'new-late', { started_at: startAt(4) }),
        end(p, 'new-1', { ended_at: startAt(2) + 1, summary: '{"status_counts":{"error":1}}' }),
      ]);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // a start sent again with the start an older entry holds: that entry is current again
      await s.calls.write([start(p, 'c-04', { started_at: startAt(4) })]);
      await indexAll(s);
      await samePages(s, p);
      await s.calls.write([start(p, 'c-04', { started_at: T0 + 54_000_000 })]);
      await indexAll(s);
      assert.ok((await samePages(s, p)) > 200);
      assert.deepEqual(await ids(s, { project_id: other, where: where(isStatus('error')), limit: 5 }), ['o-1']);
    }),
  );

  test(
    'the include options and selected columns give the same rows',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const parts: CallPart[] = [];
      for (let i = 0; i < 12; i++) {
        const id = `r-${String(i).padStart(2, '0')}`;
        parts.push(
          start(p, id, { started_at: T0 + i, inputs: JSON.stringify({ i }), parent_id: i % 2 ? 'r-00' : null }),
        );
        if (i % 5 !== 0) parts.push(end(p, id, { exception: i % 3 === 0 ? 'x' : null, output: JSON.stringify(i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      for (const extra of [{ where: where(isStatus('success')) }, { sort_by: sort(SORTS[5]!) }]) {
        const q: CallsQuery = {
          project_id: p,
          ...extra,
          include_storage_size: true,
          include_total_storage_size: true,
          include_usernames: true,
        };
        await assertPagesOfRows(s, q);
      }
    }),
  );
});

test('the status walk reads call_status only with a limit, on a covered project, for its shapes', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const uses = (q: CallsQuery, indexed: boolean | { backfilled: boolean; covered: boolean } = true): boolean =>
      /\) k CROSS JOIN calls c/.test(compileCallsSelect(q, d, indexed).sql);
    // every filter with a status test, under every sort by start; every filter under a sort by status
    for (const extra of FILTERS)
      for (const keys of SORTS) {
        const byStatus = keys !== null && keys[0]!.field === 'summary.weave.status';
        const q = { ...query('p', extra, keys), limit: 10 };
        assert.equal(uses(q), extra.where != null || byStatus, JSON.stringify({ extra, keys }));
        assert.equal(uses({ ...q, limit: undefined }), false);
        assert.equal(uses(q, { backfilled: true, covered: false }), false);
      }
    // a capped count of a status test counts its candidates; without a cap or with storage sums it scans
    for (const extra of FILTERS) {
      const counted = (over: Partial<CallsQuery>): boolean =>
        /call_status/.test(compileCallsCount({ project_id: 'p', ...extra, ...over }, d, true).sql);
      assert.equal(counted({ limit: 10 }), extra.where != null && !/nothing/.test(JSON.stringify(extra.where)));
      assert.equal(counted({}), false);
      assert.equal(counted({ limit: 10, include_total_storage_size: true }), false);
    }
    const q = query('p', FILTERS[2]!, SORTS[1]!);
    assert.ok(uses({ ...q, limit: 10 }, { backfilled: false, covered: true }));
    // the calls after the mark are candidates too
    assert.match(compileCallsSelect({ ...q, limit: 10 }, d, true).sql, /call_text_marks/);
    // other sorts, a status test under $or or $not, an equality or a list of ids keep the plain plan
    const plain: CallsQuery[] = [
      // (op_name would take the op-name walk, calls-query/names.ts OP_NAMES: also a join of candidates)
      { ...q, sort_by: sort([{ field: 'inputs.user', direction: 'asc' }]) },
      { ...q, sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'asc' }]) },
      {
        ...q,
        sort_by: sort([
          { field: 'summary.weave.status', direction: 'asc' },
          { field: 'op_name', direction: 'asc' },
        ]),
      },
      { ...q, where: where({ $or: [isStatus('error'), isStatus('running')] }) },
      { ...q, where: where({ $not: [isStatus('error')] }) },
      { ...q, where: where({ $and: [isStatus('error'), { $eq: [{ $getField: 'inputs.user' }, { $literal: 'u' }] }] }) },
      { ...q, filter: { trace_ids: ['t'] } },
    ];
    for (const other of plain) assert.equal(uses({ ...other, limit: 10 }), false, JSON.stringify(other));
  }
});

/** The SQL with its bound parameters written in as literals (the key paths, in these tests). */
function inlined(d: SqlDialect, build: (p: SqlParams) => string): string {
  const p = new SqlParams(d);
  const sql = build(p);
  const literal = (v: unknown): string => {
    if (typeof v === 'string') return `'${v}'`;
    if (Array.isArray(v)) return `'{${v.join(',')}}'`;
    throw new Error(`unexpected parameter ${String(v)}`);
  };
  return sql.replace(/@p(\d+)|\$(\d+)/g, (_, a: string | undefined, b: string | undefined) =>
    literal(p.values[Number(a ?? b) - 1]),
  );
}

test('the stored status is the one the query language computes from summary.status_counts.error', () => {
  // the one expression per store must read the error count as each dialect's jsonNumber does
  for (const [d, derived] of [
    [sqliteDialect, SQLITE_DERIVED_STATUS],
    [postgresDialect, POSTGRES_DERIVED_STATUS],
  ] as const) {
    const errors = inlined(d, (p) => d.jsonNumber('c.summary', ['status_counts', 'error'], p));
    assert.ok(derived.includes(`COALESCE(${errors}, 0) > 0`), `${errors}\n${derived}`);
    assert.equal(d.derivedStatus, derived);
  }
});

test('a filter too large to compile once per status keeps the plain plan instead of failing', () => {
  const conditions = Array.from({ length: 1_500 }, (_, i) => ({
    $gte: [{ $getField: 'inputs.a.a.a.x' }, { $literal: -i }],
  }));
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      where: where({ $and: conditions }),
      sort_by: sort([{ field: 'summary.weave.status', direction: 'asc' }]),
      limit: 10,
    };
    const compiled = compileCallsSelect(q, d, true);
    assert.doesNotMatch(compiled.sql, /call_status/);
    // large enough that the walk's five copies of the filter pass the budget
    assert.ok(compiled.sql.length > SQL_BUDGET.chars / 5, String(compiled.sql.length));
  }
});
