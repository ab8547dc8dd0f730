import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-query/names.js';
import { compileCallsSelect } from '../../../src/store/sql/calls-query/select.js';
import { postgresDialect } from '../../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../../src/store/sqlite/sqlite-dialect.js';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import {
  assertIncludeOptionRows,
  assertSortedPagesCut,
  end,
  fillDone,
  ids,
  indexAll,
  sort,
  start,
  walkSorts,
  where,
} from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * A sort by `summary.weave.trace_name` with a limit reads its page's candidates from
 * `call_trace_names` (migration 026) once the project's fill is complete, plus the calls after the
 * project's mark (calls-query/select.ts `nameIds`, calls-query/names.ts `TRACE_NAMES`). Each check compares
 * every page (both directions, an `id` tie-break either way, filters, offsets) with the same query
 * without a limit, which keeps the plan that orders every matching call, cut to the page: before
 * the indexer ran, part way, when done, and after renames, starts sent again and deletions. The
 * trace name falls back from the display name (NULL or '') to the op's display name, then to the op
 * name. test/store/schema/entry-fills.test.ts checks the fill of a project indexed before
 * migration 026 (entries missing until it passes) and the statement's own check of it.
 */
forEachAdapter('calls sorted by trace name through call_trace_names', (store) => {
  const T0 = 1_700_000_000_000_000;
  const LONG = 'L'.repeat(DISPLAY_KEY_CHARS);
  const traceName = { $getField: 'summary.weave.trace_name' };
  const FIELD = 'summary.weave.trace_name';
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { trace_roots_only: true } },
    { filter: { op_names: ['weave:///acme/demo/op/other:abc'] } },
    { where: where({ $gt: [traceName, { $literal: 'b' }] }) },
    // the long names only: the walk of names cut to the key decides the first pages
    { where: where({ $gte: [traceName, { $literal: LONG }] }) },
    { where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'running' }] }) },
    { started_from: T0 + 5_000_000, started_before: T0 + 30_000_000 },
    { filter: { parent_ids: ['t-00'] } },
  ];
  const SORTS = walkSorts(FIELD, true);
  const PAGES = [
    ...Array.from({ length: 12 }, (_, i) => [1, i] as const),
    [4, 0],
    [4, 3],
    [100, 0],
    [2, 30],
    [3, 38],
  ] as const;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);
  // display names: ties, '' and NULL (the op's names then), case and non-ASCII, long ones
  const NAMES: Array<string | null> = [
    null,
    'alpha',
    '',
    'Beta',
    'predict',
    null,
    `${LONG}a`,
    'é',
    '',
    `${LONG}b`,
    'b',
  ];
  // op refs with their display names, plain op names (no display name), long names of both kinds
  const OPS: Array<[string, string | null]> = [
    ['weave:///acme/demo/op/predict:abc', 'predict'],
    ['weave:///acme/demo/op/other:abc', 'other'],
    ['plain_op', null],
    ['weave:///acme/demo/op/long:abc', `${LONG}x`],
    [`${LONG}plain`, null],
    ['alpha', null],
    ['weave:///acme/demo/op/other:abc', 'Beta'],
  ];

  test(
    'fallbacks to the op names, ties, long names, the fill, renames, deletions',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const rnd = rng(25_025);
      const parts: CallPart[] = [];
      const startAt = (i: number): number => T0 + i * 1_000_000;
      const idOf = (i: number): string => `t-${String(i).padStart(2, '0')}`;
      for (let i = 0; i < 44; i++) {
        const [op_name, op_display_name] = OPS[i % OPS.length]!;
        const parent = i % 4 === 0 && i > 0 ? 't-00' : null;
        const display_name = NAMES[i % NAMES.length]!;
        parts.push(
          start(p, idOf(i), { op_name, op_display_name, started_at: startAt(i), parent_id: parent, display_name }),
        );
        if (i % 3 !== 1) parts.push(end(p, idOf(i), { ended_at: startAt(i) + Math.floor(rnd() * 5) * 1_000 }));
      }
      // a rename before its start: the row has a name and no start (nor op) yet
      parts.push({ kind: 'update', project_id: p, id: 'late', display_name: 'alpha' });
      parts.push(start(other, 'o-1', { display_name: 'alpha' }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['t-05', 't-09'], 1_800_000_000_000_000);

      assert.equal(await fillDone(s, p, 'trace_names'), false);
      await samePages(s, p);
      for (let i = 0; i < 3; i++) await s.callText.step(4);
      await samePages(s, p);
      // a project the indexer first reaches after migration 026 has nothing to fill in: the walk is
      // read as soon as the mark covers it (the fill: test/store/schema/entry-fills.test.ts)
      while (!(await s.callText.covers(p))) await s.callText.step(7);
      assert.equal(await fillDone(s, p, 'trace_names'), true);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await fillDone(s, p, 'trace_names'), true);
      assert.ok((await samePages(s, p)) > 100);

      // after the fill: display names set, emptied (the op's names again), long ones renamed under
      // the same key, a long one renamed to a short one, starts sent again with another op or name
      const rename = (id: string, display_name: string): CallPart => ({
        kind: 'update',
        project_id: p,
        id,
        display_name,
      });
      const renames: CallPart[] = [];
      for (let i = 0; i < 44; i += 5) renames.push(rename(idOf(i), ['zz', '', 'a', `${LONG}c`, 'Beta'][(i / 5) % 5]!));
      renames.push(rename('t-06', `${LONG}B`), rename('t-07', ''), rename('t-09', 'deleted'));
      renames.push(rename(idOf(NAMES.indexOf(`${LONG}b`)), 'A'));
      renames.push(start(p, 't-03', { started_at: startAt(3), op_name: 'plain_op', op_display_name: null }));
      renames.push(start(p, 't-13', { started_at: startAt(13), display_name: 'omega' }));
      // starts sent again with another parent: a root becomes a child and a child a root (the entries'
      // root key changes; the old entry stays under the other place)
      renames.push(start(p, 't-04', { started_at: startAt(4), parent_id: null, display_name: 'zz-root' }));
      renames.push(start(p, 't-01', { started_at: startAt(1), parent_id: 't-00', display_name: 'zz-child' }));
      renames.push(start(p, 'late', { started_at: T0 + 50_000_000 }), start(p, 'new-1', { started_at: T0 }));
      await s.calls.write(renames);
      await s.calls.deleteCascade(p, ['t-11'], 1_800_000_000_000_000);
      await samePages(s, p);
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // a call renamed back to the name an older entry holds: that entry is current again
      await s.calls.write([rename('t-02', 'zeta')]);
      await indexAll(s);
      await s.calls.write([rename('t-02', '')]);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      assert.deepEqual(await ids(s, { project_id: other, sort_by: sort(SORTS[0]!), limit: 5 }), ['o-1']);
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
        const [op_name, op_display_name] = OPS[i % OPS.length]!;
        parts.push(
          start(p, id, {
            started_at: T0 + i,
            inputs: JSON.stringify({ i }),
            parent_id: i % 2 ? 'r-00' : null,
            op_name,
            op_display_name,
            display_name: NAMES[i % NAMES.length]!,
          }),
        );
        if (i % 5 !== 0) parts.push(end(p, id, { ended_at: T0 + i + 1_000, output: JSON.stringify(i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      assert.equal(await fillDone(s, p, 'trace_names'), true);
      await assertIncludeOptionRows(s, p, FIELD);
    }),
  );
});

test('the trace-name sort reads call_trace_names only with a limit, once the fill is complete', () => {
  const filled = { backfilled: true, covered: true };
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      sort_by: sort([{ field: 'summary.weave.trace_name', direction: 'asc' }]),
      limit: 10,
    };
    const sql = compileCallsSelect(q, d, filled).sql;
    assert.match(sql, /call_trace_names/);
    // the calls after the mark are candidates too, and every call while the fill is not complete
    assert.match(sql, /call_text_marks/);
    assert.match(sql, /call_entry_fills/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, filled).sql, /call_trace_names/);
    assert.doesNotMatch(compileCallsSelect(q, d, { ...filled, pending: ['trace_names'] }).sql, /call_trace_names/);
    assert.doesNotMatch(compileCallsSelect(q, d, { ...filled, covered: false }).sql, /call_trace_names/);
    const then = (field: string) =>
      sort([
        { field: 'summary.weave.trace_name', direction: 'desc' },
        { field, direction: 'asc' },
      ]);
    assert.match(compileCallsSelect({ ...q, sort_by: then('id') }, d, filled).sql, /call_trace_names/);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then('started_at') }, d, filled).sql, /call_trace_names/);
    const byUser = where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: byUser }, d, filled).sql, /call_trace_names/);
    const search = where({ $contains: { input: { $getField: 'inputs.user' }, substr: { $literal: 'user-1' } } });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: search }, d, filled).sql, /call_trace_names/);
    for (const filter of [{ trace_ids: ['t'] }, { parent_ids: ['p'] }, { call_ids: ['c'] }, { thread_ids: ['h'] }])
      assert.doesNotMatch(compileCallsSelect({ ...q, filter }, d, filled).sql, /call_trace_names/);
    assert.match(compileCallsSelect({ ...q, filter: { trace_roots_only: true } }, d, filled).sql, /call_trace_names/);
    // the ORDER BY is the plain query's (SQLite's `+` only keeps an index from serving it)
    const order = (s: string): string =>
      s.slice(s.lastIndexOf('ORDER BY'), s.lastIndexOf(' LIMIT ')).replace(/\+/g, '');
    assert.equal(order(compileCallsSelect(q, d, filled).sql), order(compileCallsSelect(q, d, false).sql));
  }
});
