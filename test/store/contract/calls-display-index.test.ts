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
  ids,
  indexAll,
  sort,
  start,
  where,
  walkSorts,
} from './parts.js';
import { rng } from './rollup-fixture.js';

/**
 * A sort by `display_name` with a limit reads its page's candidates from `call_display` (migration
 * 021), which the call indexer fills, plus the calls after the project's mark (calls-query/select.ts
 * `displayNameIds`). Each check compares every page (both directions, an `id` tie-break either way,
 * filters, offsets) with the same query without a limit, which keeps the plan that orders every
 * matching call, cut to the page: before the indexer ran, part way, when done, and after renames
 * (`/call/update`, starts sent again), deletions, NULL names and names longer than the key.
 */
forEachAdapter('calls sorted by display name through call_display', (store) => {
  const T0 = 1_700_000_000_000_000;
  const LONG = 'L'.repeat(DISPLAY_KEY_CHARS);
  const KEYS = 'K'.repeat(DISPLAY_KEY_CHARS);
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { trace_roots_only: true } },
    { filter: { op_names: ['weave:///acme/demo/op/other:abc'] } },
    { where: where({ $gt: [{ $getField: 'display_name' }, { $literal: 'b' }] }) },
    // the long names only: the walk of names cut to the key decides the first pages
    { where: where({ $gte: [{ $getField: 'display_name' }, { $literal: LONG }] }) },
    // two keys of long names, no whole name between them, and a short name
    {
      where: where({
        $or: [
          {
            $and: [
              { $gte: [{ $getField: 'display_name' }, { $literal: KEYS }] },
              { $lt: [{ $getField: 'display_name' }, { $literal: `${LONG.slice(1)}M` }] },
              { $not: [{ $eq: [{ $getField: 'display_name' }, { $literal: LONG }] }] },
            ],
          },
          { $eq: [{ $getField: 'display_name' }, { $literal: 'A' }] },
        ],
      }),
    },
    { where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'running' }] }) },
    { started_from: T0 + 5_000_000, started_before: T0 + 30_000_000 },
    { filter: { parent_ids: ['c-00'] } },
  ];
  const SORTS = walkSorts('display_name', true);
  // a page of one at each of the first offsets: the walks' limits bind there
  const PAGES = [
    ...Array.from({ length: 14 }, (_, i) => [1, i] as const),
    [4, 0],
    [4, 3],
    [100, 0],
    [2, 30],
    [3, 38],
  ] as const;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);
  // names with ties, the empty name, NULL, case and non-ASCII (byte order), names longer than the
  // key (sharing it, differing after it, equal), and a name exactly as long as the key
  const NAMES: Array<string | null> = [
    null,
    'alpha',
    'Beta',
    'beta',
    '',
    'é',
    'zeta',
    null,
    'alpha',
    `${LONG}b`,
    `${LONG}a`,
    LONG,
    `${LONG}a`,
    '😀',
    'b',
    null,
    `${LONG.slice(1)}M`,
    `${KEYS}x`,
    `${KEYS}y`,
  ];
  const nameOf = (i: number): string | null => NAMES[i % NAMES.length]!;

  test(
    'ties, NULL and long names, renames, starts sent again, deletions, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const rnd = rng(21_021);
      const parts: CallPart[] = [];
      const startAt = (i: number): number => T0 + i * 1_000_000;
      const idOf = (i: number): string => `c-${String(i).padStart(2, '0')}`;
      for (let i = 0; i < 44; i++) {
        const op = i % 3 === 0 ? 'weave:///acme/demo/op/other:abc' : 'weave:///acme/demo/op/predict:abc';
        const parent = i % 4 === 0 && i > 0 ? 'c-00' : null;
        parts.push(
          start(p, idOf(i), { op_name: op, started_at: startAt(i), parent_id: parent, display_name: nameOf(i) }),
        );
        if (i % 3 !== 1) parts.push(end(p, idOf(i), { ended_at: startAt(i) + Math.floor(rnd() * 5) * 1_000 }));
      }
      // a rename before its start: the row has a name and no start yet
      parts.push({ kind: 'update', project_id: p, id: 'late', display_name: 'alpha' });
      parts.push(start(other, 'o-1', { display_name: 'alpha' }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['c-05', 'c-09'], 1_800_000_000_000_000);

      assert.equal(await s.callText.covers(p), false);
      await samePages(s, p);
      for (let i = 0; i < 3; i++) await s.callText.step(4);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await s.callText.covers(p), true);
      assert.ok((await samePages(s, p)) > 100);

      // after the indexer: renames (their old entries go stale), NULL names named, long names
      // renamed under the same key, a start sent again with another name, the late start, a deletion
      const renames: CallPart[] = [];
      const rename = (id: string, display_name: string): CallPart => ({
        kind: 'update',
        project_id: p,
        id,
        display_name,
      });
      for (let i = 0; i < 44; i += 5) renames.push(rename(idOf(i), ['zz', 'a', '', `${LONG}c`, 'Beta'][(i / 5) % 5]!));
      renames.push(rename('c-07', 'alpha'), rename('c-12', `${LONG}B`), rename('c-10', LONG));
      // a long name renamed to a short one: its stale entry under the long key must not take a place
      renames.push(rename(idOf(NAMES.indexOf(`${LONG}b`) + NAMES.length), 'A'));
      renames.push(start(p, 'c-03', { started_at: startAt(3), display_name: 'omega' }));
      renames.push(start(p, 'late', { started_at: T0 + 50_000_000 }), start(p, 'new-1', { started_at: T0 }));
      await s.calls.write(renames);
      await s.calls.deleteCascade(p, ['c-11'], 1_800_000_000_000_000);
      await samePages(s, p);
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // a call renamed back to the name an older entry holds: that entry is current again
      await s.calls.write([rename('c-02', 'zeta')]);
      await indexAll(s);
      await s.calls.write([rename('c-02', 'Beta')]);
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
        parts.push(
          start(p, id, {
            started_at: T0 + i,
            inputs: JSON.stringify({ i }),
            parent_id: i % 2 ? 'r-00' : null,
            display_name: nameOf(i),
          }),
        );
        if (i % 5 !== 0) parts.push(end(p, id, { ended_at: T0 + i + 1_000, output: JSON.stringify(i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      assert.equal(await s.callText.covers(p), true);
      await assertIncludeOptionRows(s, p, 'display_name');
    }),
  );
});

test('the display-name sort reads call_display only with a limit, on a covered project', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = { project_id: 'p', sort_by: sort([{ field: 'display_name', direction: 'asc' }]), limit: 10 };
    assert.match(compileCallsSelect(q, d, true).sql, /call_display/);
    // the calls after the mark are candidates too
    assert.match(compileCallsSelect(q, d, true).sql, /call_text_marks/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, true).sql, /call_display/);
    assert.doesNotMatch(compileCallsSelect(q, d, { backfilled: true, covered: false }).sql, /call_display/);
    assert.match(compileCallsSelect(q, d, { backfilled: false, covered: true }).sql, /call_display/);
    const then = (field: string) =>
      sort([
        { field: 'display_name', direction: 'desc' },
        { field, direction: 'asc' },
      ]);
    assert.match(compileCallsSelect({ ...q, sort_by: then('id') }, d, true).sql, /call_display/);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then('started_at') }, d, true).sql, /call_display/);
    const byUser = where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: byUser }, d, true).sql, /call_display/);
    for (const filter of [{ trace_ids: ['t'] }, { parent_ids: ['p'] }, { call_ids: ['c'] }, { thread_ids: ['h'] }])
      assert.doesNotMatch(compileCallsSelect({ ...q, filter }, d, true).sql, /call_display/);
    assert.match(compileCallsSelect({ ...q, filter: { trace_roots_only: true } }, d, true).sql, /call_display/);
  }
});
