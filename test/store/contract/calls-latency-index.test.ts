import assert from 'node:assert/strict';
import { test } from 'node:test';
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
 * A sort by `summary.weave.latency_ms` with a limit reads its page's candidates from `call_latency`
 * (migration 019), which the call indexer fills, plus the calls after the project's mark
 * (calls-query/select.ts `latencySortIds`). Each check compares every page (both directions, an `id`
 * tie-break either way, filters, offsets) with the same query without a limit, which keeps the plan
 * that orders every matching call, cut to the page: before the indexer ran, part way, when done, and
 * after ends sent again changed latencies (stale entries), deletions, running calls and ends
 * before their starts.
 */
forEachAdapter('calls sorted by latency through call_latency', (store) => {
  const T0 = 1_700_000_000_000_000;
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { op_names: ['weave:///acme/demo/op/other:abc'] } },
    { where: where({ $gt: [{ $getField: 'summary.weave.latency_ms' }, { $literal: 2 }] }) },
    { filter: { trace_roots_only: true }, started_from: T0 + 5_000_000 },
    { where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'running' }] }) },
    { filter: { parent_ids: ['c-00'] } },
  ];
  const SORTS = walkSorts('summary.weave.latency_ms');
  const PAGES = [
    [1, 0],
    [4, 0],
    [4, 3],
    [100, 0],
    [2, 30],
  ] as const;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);
  const throughIndexing = async (s: TraceStore, p: string): Promise<void> => {
    assert.equal(await s.callText.covers(p), false);
    await samePages(s, p);
    for (let i = 0; i < 3; i++) await s.callText.step(4);
    await samePages(s, p);
    await indexAll(s);
    assert.equal(await s.callText.covers(p), true);
    assert.ok((await samePages(s, p)) > 50);
  };

  test(
    'ties, running calls, ends before starts, deletions, re-sent ends, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const rnd = rng(19_019);
      const parts: CallPart[] = [];
      const startAt = (i: number): number => T0 + i * 1_000_000;
      for (let i = 0; i < 36; i++) {
        const id = `c-${String(i).padStart(2, '0')}`;
        const op = i % 3 === 0 ? 'weave:///acme/demo/op/other:abc' : 'weave:///acme/demo/op/predict:abc';
        const parent = i % 4 === 0 ? 'c-00' : null;
        // an end before its start for some: the start comes in a later write
        if (i % 7 === 3) parts.push(end(p, id, { ended_at: startAt(i) + Math.floor(rnd() * 4) * 1_000 + 999 }));
        parts.push(start(p, id, { op_name: op, started_at: startAt(i), parent_id: parent }));
        // latencies 0–4 ms (many ties, a negative one), a third still running
        if (i % 3 !== 1 && i % 7 !== 3)
          parts.push(end(p, id, { ended_at: startAt(i) + Math.floor(rnd() * 5) * 1_000 }));
        if (i === 35) parts.push(end(p, id, { ended_at: startAt(i) - 3_000 }));
      }
      parts.push(start(other, 'o-1'), end(other, 'o-1', { ended_at: T0 + 9_000_000_000 }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['c-05', 'c-08'], 1_800_000_000_000_000);
      await throughIndexing(s, p);

      // after the indexer: ends sent again with other latencies (their old entries go stale),
      // ends of running calls, a new running call, an end before its start, a deletion
      const changes: CallPart[] = [];
      for (let i = 0; i < 36; i += 4) {
        const id = `c-${String(i).padStart(2, '0')}`;
        changes.push(end(p, id, { ended_at: startAt(i) + Math.floor(rnd() * 5) * 1_000 + 500 }));
      }
      changes.push(
        end(p, 'c-01', { ended_at: startAt(1) + 2_000 }),
        start(p, 'new-1', { started_at: T0 + 40_000_000 }),
      );
      changes.push(end(p, 'new-late', { ended_at: T0 + 41_003_000 }));
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['c-10'], 1_800_000_000_000_000);
      await samePages(s, p);
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await samePages(s, p);
      await s.calls.write([
        start(p, 'new-late', { started_at: T0 + 41_000_000 }),
        end(p, 'c-02', { ended_at: startAt(2) }),
      ]);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // an end sent again with the latency an older entry holds: that entry is current again
      await s.calls.write([end(p, 'c-04', { ended_at: startAt(4) + 4_000 })]);
      await indexAll(s);
      await s.calls.write([end(p, 'c-04', { ended_at: startAt(4) + 1_000 })]);
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
          start(p, id, { started_at: T0 + i, inputs: JSON.stringify({ i }), parent_id: i % 2 ? 'r-00' : null }),
        );
        if (i % 5 !== 0) parts.push(end(p, id, { ended_at: T0 + i + (i % 4) * 1_000, output: JSON.stringify(i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      assert.equal(await s.callText.covers(p), true);
      await assertIncludeOptionRows(s, p, 'summary.weave.latency_ms');
    }),
  );
});

test('the latency sort reads call_latency only with a limit, on a backfilled and covered project', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      sort_by: sort([{ field: 'summary.weave.latency_ms', direction: 'desc' }]),
      limit: 10,
    };
    assert.match(compileCallsSelect(q, d, true).sql, /call_latency/);
    // the calls after the mark are candidates too
    assert.match(compileCallsSelect(q, d, true).sql, /call_text_marks/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, true).sql, /call_latency/);
    for (const state of [
      { backfilled: true, covered: false },
      { backfilled: false, covered: true },
    ])
      assert.doesNotMatch(compileCallsSelect(q, d, state).sql, /call_latency/);
    const then = (field: string) =>
      sort([
        { field: 'summary.weave.latency_ms', direction: 'desc' },
        { field, direction: 'asc' },
      ]);
    assert.match(compileCallsSelect({ ...q, sort_by: then('id') }, d, true).sql, /call_latency/);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then('started_at') }, d, true).sql, /call_latency/);
    const byUser = where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: byUser }, d, true).sql, /call_latency/);
    // a few calls named by the filter are found by their index and sorted
    for (const filter of [{ trace_ids: ['t'] }, { parent_ids: ['p'] }, { call_ids: ['c'] }, { thread_ids: ['h'] }])
      assert.doesNotMatch(compileCallsSelect({ ...q, filter }, d, true).sql, /call_latency/);
    assert.match(
      compileCallsSelect({ ...q, filter: { op_names: ['o'], parent_ids: [] } }, d, true).sql,
      /call_latency/,
    );
  }
});
