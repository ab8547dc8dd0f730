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
  indexAll,
  sort,
  start,
  walkSorts,
  where,
} from './parts.js';

/**
 * A sort by `op_name` with a limit reads its page's candidates from `call_op_names` (migration 029)
 * once the project's fill is done, plus the calls after the project's mark (calls-query/select.ts
 * `nameSortIds`, calls-query/names.ts `OP_NAMES`). Each check compares every page (both directions, an
 * `id` tie-break either way, filters, offsets) with the same query without a limit, which keeps the
 * plan that orders every matching call, cut to the page: before the indexer ran, part way, when done,
 * and after starts sent again with another op or parent, and deletions. Ops with many calls (the
 * ties the walk serves in id order), long op names (cut keys), roots and children.
 */
forEachAdapter('calls sorted by op name through call_op_names', (store) => {
  const T0 = 1_700_000_000_000_000;
  const LONG = 'weave:///acme/demo/op/' + 'l'.repeat(DISPLAY_KEY_CHARS);
  const FIELD = 'op_name';
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { trace_roots_only: true } },
    { filter: { op_names: ['weave:///acme/demo/op/b:1'] } },
    { where: where({ $gt: [{ $getField: 'op_name' }, { $literal: 'weave:///acme/demo/op/b' }] }) },
    { where: where({ $gte: [{ $getField: 'op_name' }, { $literal: LONG }] }) },
    { where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'running' }] }) },
    { started_from: T0 + 5_000_000, started_before: T0 + 30_000_000 },
    { filter: { parent_ids: ['o-00'] } },
  ];
  const SORTS = walkSorts(FIELD, true);
  const PAGES = [...Array.from({ length: 8 }, (_, i) => [1, i] as const), [4, 0], [4, 3], [100, 0], [2, 30]] as const;
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);
  const OPS = [
    'weave:///acme/demo/op/a:1',
    'weave:///acme/demo/op/b:1',
    'weave:///acme/demo/op/a:1',
    `${LONG}x`,
    'plain_op',
    `${LONG}y`,
    'weave:///acme/demo/op/a:1',
    'Upper',
    'é',
  ];
  const idOf = (i: number): string => `o-${String(i).padStart(2, '0')}`;
  const startAt = (i: number): number => T0 + i * 1_000_000;

  test(
    'ties, long names, roots and children, the indexer part way, starts sent again, deletions',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const parts: CallPart[] = [];
      for (let i = 0; i < 40; i++) {
        const parent = i % 3 === 1 ? 'o-00' : null;
        parts.push(start(p, idOf(i), { op_name: OPS[i % OPS.length]!, started_at: startAt(i), parent_id: parent }));
        if (i % 4 !== 1) parts.push(end(p, idOf(i), { ended_at: startAt(i) + 1_000 }));
      }
      for (let i = 0; i < parts.length; i += 11) await s.calls.write(parts.slice(i, i + 11));
      await samePages(s, p);
      for (let i = 0; i < 3; i++) await s.callText.step(4);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await fillDone(s, p, 'op_names'), true);
      assert.ok((await samePages(s, p)) > 100);
      // starts sent again with another op (a long one under the same key too) or another parent
      await s.calls.write([
        start(p, idOf(2), { op_name: 'zz_op', started_at: startAt(2) }),
        start(p, idOf(3), { op_name: `${LONG}a`, started_at: startAt(3) }),
        start(p, idOf(4), { op_name: 'weave:///acme/demo/op/a:1', started_at: startAt(4), parent_id: 'o-00' }),
        start(p, idOf(7), { op_name: 'Upper', started_at: startAt(7), parent_id: null }),
      ]);
      await s.calls.deleteCascade(p, [idOf(9)], 1_800_000_000_000_000);
      await samePages(s, p);
      await s.callText.step(2);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // an op given back: the older entry is current again
      await s.calls.write([start(p, idOf(2), { op_name: OPS[2]!, started_at: startAt(2) })]);
      await indexAll(s);
      await samePages(s, p);
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
        const parent_id = i % 2 ? 'r-00' : null;
        parts.push(
          start(p, id, { started_at: T0 + i, inputs: JSON.stringify({ i }), parent_id, op_name: OPS[i % 4]! }),
        );
        if (i % 5 !== 0) parts.push(end(p, id, { ended_at: T0 + i + 1_000, output: JSON.stringify(i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      await assertIncludeOptionRows(s, p, FIELD);
    }),
  );
});

test('the op-name sort reads call_op_names with a limit, once filled, and not under an op filter', () => {
  const filled = { backfilled: true, covered: true };
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = { project_id: 'p', sort_by: sort([{ field: 'op_name', direction: 'asc' }]), limit: 10 };
    const sql = compileCallsSelect(q, d, filled).sql;
    assert.match(sql, /call_op_names/);
    assert.match(sql, /call_entry_fills/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, filled).sql, /call_op_names/);
    assert.doesNotMatch(compileCallsSelect(q, d, { ...filled, pending: ['op_names'] }).sql, /call_op_names/);
    assert.doesNotMatch(compileCallsSelect({ ...q, filter: { op_names: ['x'] } }, d, filled).sql, /call_op_names/);
    const then = sort([
      { field: 'op_name', direction: 'asc' },
      { field: 'started_at', direction: 'desc' },
    ]);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then }, d, filled).sql, /call_op_names/);
  }
});
