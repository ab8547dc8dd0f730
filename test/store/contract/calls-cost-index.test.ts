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
import { DAY, price, T0, usageOf } from './cost-fixture.js';

/**
 * A sort by `summary.weave.total_cost` with a limit reads its page's candidates from `call_cost`
 * (migration 024): the entries of the project's current generation, which the call indexer writes
 * (src/store/sql/call-indexes/cost-entries.ts), plus the calls after the project's mark, or every call while
 * the generation is not complete. Each check compares every page (both directions, an `id`
 * tie-break either way, filters, offsets) with the same query without a limit, which keeps the plan
 * that prices and orders every matching call: before the indexer ran, part way, when done, after
 * ends sent again (stale entries) and starts that made children roots, and after the project's prices changed, while the new generation
 * is written and once it is.
 */
forEachAdapter('calls sorted by cost through call_cost', (store) => {
  const OTHER_OP = 'weave:///acme/demo/op/other:abc';
  const cost = { $getField: 'summary.weave.total_cost' };
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { op_names: [OTHER_OP] } },
    { where: where({ $gt: [cost, { $literal: 0.01 }] }) },
    { filter: { trace_roots_only: true }, started_from: T0 },
  ];
  const SORTS = walkSorts('summary.weave.total_cost');
  const PAGES = [
    [1, 0],
    [4, 3],
    [100, 0],
    [3, 33],
  ] as const;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);
  /** The project's `call_cost` entries, all generations. */
  const entries = async (s: TraceStore, p: string): Promise<number> =>
    (await s.projectData.rowCounts(p))['call_cost'] ?? 0;

  test(
    'pages before, during and after indexing, re-sent ends, and price changes',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      await s.costs.insert(p, [
        price(p, 'pr-1', 'm-own', T0 - 10 * DAY, [1e-6, 2e-6, 1e-7, 3e-6]),
        price(p, 'pr-2', 'm-own', T0 + 20 * DAY, [3e-6, 4e-6, 2e-7, 1e-6]),
        price(p, 'pr-3', 'gpt-4o', T0 + 40 * DAY, [1.1e-6, 3.3e-6, 0.1e-6, 0]),
      ]);
      const rnd = rng(24_024);
      const parts: CallPart[] = [];
      const startAt = (i: number): number => T0 + (i - 10) * 2 * DAY;
      const id = (i: number): string => `k-${String(i).padStart(2, '0')}`;
      for (let i = 0; i < 40; i++) {
        const op = i % 3 === 0 ? OTHER_OP : 'weave:///acme/demo/op/predict:abc';
        parts.push(start(p, id(i), { op_name: op, started_at: startAt(i), parent_id: i % 4 === 0 ? null : 'k-00' }));
        if (i % 11 === 7) continue;
        // ties: every fifth call the same usage
        const usage = i % 5 === 1 ? { 'm-own': { prompt_tokens: 10 } } : usageOf(rnd);
        const summary = i % 9 === 4 ? '{}' : JSON.stringify({ usage });
        parts.push(end(p, id(i), { ended_at: startAt(i) + 1, summary }));
      }
      parts.push(start(other, 'o-1'), end(other, 'o-1', { summary: '{"usage":{"gpt-4o":{"prompt_tokens":9}}}' }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['k-05'], 1_800_000_000_000_000);

      assert.equal(await s.callText.costCovers(p), false);
      await samePages(s, p);
      for (let i = 0; i < 6; i++) await s.callText.step(4);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await s.callText.costCovers(p), true);
      assert.ok((await samePages(s, p)) > 40);

      // ends sent again with other usage: their old entries go stale until the indexer passes them
      const changes: CallPart[] = [];
      for (let i = 0; i < 40; i += 4)
        changes.push(end(p, id(i), { ended_at: startAt(i) + 2, summary: JSON.stringify({ usage: usageOf(rnd) }) }));
      changes.push(start(p, 'new-1', { started_at: T0 + 50 * DAY }));
      // children made roots by their start sent again, their cost unchanged: the roots' index must list them
      for (const i of [1, 6, 11, 21])
        changes.push(start(p, id(i), { op_name: OTHER_OP, started_at: startAt(i), parent_id: null }));
      await s.calls.write(changes);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);

      // the project's prices change: the entries of the old generation are not read; the pages stay
      // exact while the new one is written (a step at a time) and once it is
      for (const change of [
        () => s.costs.insert(p, [price(p, 'pr-9', 'm-own', T0 - 100 * DAY, [5e-5, 1e-6, 0, 0], 3)]),
        () => s.costs.insert(p, [price(p, 'pr-10', 'gpt-4o-mini', T0 - 100 * DAY, [1, 1, 1, 1], 4)]),
        () => s.costs.purge(p, ['pr-9']),
      ]) {
        await change();
        await samePages(s, p);
        for (let i = 0; i < 3; i++) await s.callText.step(7);
        await samePages(s, p);
        await indexAll(s);
        assert.equal(await costCovers(s, p), true);
        // one entry per call (deleted ones too) in the new generation; the older ones deleted
        assert.equal(await entries(s, p), 41);
        await samePages(s, p);
      }
      // a generation written while calls keep coming (higher ids, more each round than a step writes)
      // ends: it writes up to the highest id of its first step, the indexer the calls after
      await s.costs.insert(p, [price(p, 'pr-11', 'm-own', T0 - 200 * DAY, [2e-5, 2e-6, 0, 0], 6)]);
      let complete = false;
      for (let round = 0; round < 40 && !complete; round++) {
        const more: CallPart[] = [];
        for (let k = 0; k < 9; k++) {
          const callId = `z-${String(round * 9 + k).padStart(4, '0')}`;
          more.push(
            start(p, callId, { started_at: T0 }),
            end(p, callId, { summary: JSON.stringify({ usage: usageOf(rnd) }) }),
          );
        }
        await s.calls.write(more);
        await s.callText.step(7);
        await s.callText.step(7);
        complete = await s.callText.costCovers(p);
      }
      assert.ok(complete, 'the generation never completed while calls kept coming');
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // a purge of nothing keeps the generation
      await s.costs.purge(p, ['no-such-price']);
      assert.equal(await costCovers(s, p), true);
      assert.deepEqual(await ids(s, { project_id: other, sort_by: sort(SORTS[0]!), limit: 5 }), ['o-1']);
    }),
  );

  test(
    'the include options and selected columns give the same rows',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const rnd = rng(24);
      const parts: CallPart[] = [];
      for (let i = 0; i < 30; i++) {
        const callId = `r-${String(i).padStart(2, '0')}`;
        parts.push(start(p, callId, { started_at: T0 + i, parent_id: i % 2 ? 'r-00' : null }));
        parts.push(end(p, callId, { ended_at: T0 + i + 1, summary: JSON.stringify({ usage: usageOf(rnd) }) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      await assertIncludeOptionRows(s, p, 'summary.weave.total_cost');
    }),
  );
});

/** `costCovers` without its second-long cache: a fresh answer after each change. */
async function costCovers(s: TraceStore, p: string): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  return s.callText.costCovers(p);
}

test('the cost sort reads call_cost only with a limit, on a costed project, by cost (then id)', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      sort_by: sort([{ field: 'summary.weave.total_cost', direction: 'desc' }]),
      limit: 10,
    };
    const costed = { backfilled: true, covered: true, costed: true };
    assert.match(compileCallsSelect(q, d, true).sql, /call_cost l/);
    assert.match(compileCallsSelect(q, d, costed).sql, /call_cost_gens/);
    assert.match(compileCallsSelect(q, d, costed).sql, /call_text_marks/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, true).sql, /call_cost/);
    assert.doesNotMatch(compileCallsSelect(q, d, { backfilled: true, covered: true }).sql, /call_cost/);
    assert.doesNotMatch(compileCallsSelect(q, d, { ...costed, covered: false }).sql, /call_cost/);
    const then = (field: string) =>
      sort([
        { field: 'summary.weave.total_cost', direction: 'desc' },
        { field, direction: 'asc' },
      ]);
    assert.match(compileCallsSelect({ ...q, sort_by: then('id') }, d, true).sql, /call_cost l/);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then('started_at') }, d, true).sql, /call_cost/);
    const byUser = where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: byUser }, d, true).sql, /call_cost/);
    for (const filter of [{ trace_ids: ['t'] }, { parent_ids: ['p'] }, { call_ids: ['c'] }])
      assert.doesNotMatch(compileCallsSelect({ ...q, filter }, d, true).sql, /call_cost/);
  }
});
