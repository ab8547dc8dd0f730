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
import { USAGES, usageSummary } from './tokens-fixture.js';

/**
 * A sort by `summary.weave.total_tokens` with a limit reads its page's candidates from
 * `call_tokens` (migration 022), which the call indexer fills, plus the calls after the project's
 * mark (calls-query/tokens-sort.ts). Each check compares every page (both directions, an `id` tie-break
 * either way, filters, offsets) with the same query without a limit, which keeps the plan that
 * orders every matching call, cut to the page: before the indexer ran, part way, when done, and
 * after ends sent again changed totals (stale entries), totals changed back to an older entry's,
 * deletions, running calls and calls without usage.
 */
forEachAdapter('calls sorted by tokens through call_tokens', (store) => {
  const T0 = 1_700_000_000_000_000;
  const OTHER_OP = 'weave:///acme/demo/op/other:abc';
  const tokens = { $getField: 'summary.weave.total_tokens' };
  const FILTERS: Array<Partial<CallsQuery>> = [
    {},
    { filter: { op_names: [OTHER_OP] } },
    { where: where({ $gt: [tokens, { $literal: 9 }] }) },
    { filter: { trace_roots_only: true }, started_from: T0 + 5_000_000 },
    { where: where({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: 'running' }] }) },
    { filter: { parent_ids: ['k-00'] } },
  ];
  const SORTS = walkSorts('summary.weave.total_tokens');
  const PAGES = [
    [1, 0],
    [4, 0],
    [4, 3],
    [100, 0],
    [2, 30],
    [3, 33],
  ] as const;
  /** Every page equals the unlimited query's ids cut to it; returns how many pages had rows. */
  const samePages = (s: TraceStore, p: string): Promise<number> => assertSortedPagesCut(s, p, FILTERS, SORTS, PAGES);

  test(
    'ties, calls without usage, running calls, deletions, re-sent ends, other projects',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      const rnd = rng(22_022);
      const parts: CallPart[] = [];
      const startAt = (i: number): number => T0 + i * 1_000_000;
      const id = (i: number): string => `k-${String(i).padStart(2, '0')}`;
      for (let i = 0; i < 40; i++) {
        const op = i % 3 === 0 ? OTHER_OP : 'weave:///acme/demo/op/predict:abc';
        parts.push(start(p, id(i), { op_name: op, started_at: startAt(i), parent_id: i % 4 === 0 ? 'k-00' : null }));
        // a fifth still running; the others with any of the usage shapes (many ties)
        if (i % 5 !== 2)
          parts.push(end(p, id(i), { ended_at: startAt(i) + 1_000, summary: usageSummary(i, Math.floor(rnd() * 60)) }));
      }
      parts.push(start(other, 'o-1'), end(other, 'o-1', { summary: usageSummary(0, 2) }));
      for (let i = 0; i < parts.length; i += 9) await s.calls.write(parts.slice(i, i + 9));
      await s.calls.deleteCascade(p, ['k-05', 'k-08'], 1_800_000_000_000_000);

      assert.equal(await s.callText.covers(p), false);
      await samePages(s, p);
      for (let i = 0; i < 3; i++) await s.callText.step(4);
      await samePages(s, p);
      await indexAll(s);
      assert.equal(await s.callText.covers(p), true);
      assert.ok((await samePages(s, p)) > 80);

      // after the indexer: ends sent again with other usage (their old entries go stale), ends of
      // running calls, usage removed, a new running call, a deletion
      const changes: CallPart[] = [];
      for (let i = 0; i < 40; i += 3)
        changes.push(end(p, id(i), { ended_at: startAt(i) + 2_000, summary: usageSummary(i, Math.floor(rnd() * 60)) }));
      changes.push(
        end(p, id(2), { ended_at: startAt(2) + 2_000, summary: usageSummary(2, 2) }),
        end(p, id(4), { ended_at: startAt(4) + 2_000, summary: '{}' }),
        start(p, 'new-1', { started_at: T0 + 50_000_000 }),
      );
      await s.calls.write(changes);
      await s.calls.deleteCascade(p, ['k-10'], 1_800_000_000_000_000);
      await samePages(s, p);
      for (let i = 0; i < 2; i++) await s.callText.step(3);
      await samePages(s, p);
      await indexAll(s);
      await samePages(s, p);
      // totals changed back to the one an older entry holds: that entry is current again
      const back = (i: number, pick: number): CallPart =>
        end(p, id(i), { ended_at: startAt(i) + 3_000, summary: usageSummary(i, pick) });
      await s.calls.write([back(7, 2), back(11, 0)]);
      await indexAll(s);
      await s.calls.write([back(7, 3), back(11, 4)]);
      await indexAll(s);
      await s.calls.write([back(7, 2), back(11, 0)]);
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
      for (let i = 0; i < USAGES.length; i++) {
        const callId = `r-${String(i).padStart(2, '0')}`;
        parts.push(start(p, callId, { started_at: T0 + i, parent_id: i % 2 ? 'r-00' : null }));
        parts.push(end(p, callId, { ended_at: T0 + i + 1_000, summary: usageSummary(i, i) }));
      }
      await s.calls.write(parts);
      await indexAll(s);
      await assertIncludeOptionRows(s, p, 'summary.weave.total_tokens');
    }),
  );
});

test('the token sort reads call_tokens only with a limit, on a covered project, by tokens (then id)', () => {
  for (const d of [sqliteDialect, postgresDialect]) {
    const q: CallsQuery = {
      project_id: 'p',
      sort_by: sort([{ field: 'summary.weave.total_tokens', direction: 'desc' }]),
      limit: 10,
    };
    assert.match(compileCallsSelect(q, d, true).sql, /call_tokens/);
    assert.match(compileCallsSelect(q, d, { backfilled: false, covered: true }).sql, /call_tokens/);
    // the calls after the mark are candidates too
    assert.match(compileCallsSelect(q, d, true).sql, /call_text_marks/);
    assert.doesNotMatch(compileCallsSelect({ ...q, limit: undefined }, d, true).sql, /call_tokens/);
    assert.doesNotMatch(compileCallsSelect(q, d, { backfilled: true, covered: false }).sql, /call_tokens/);
    const then = (field: string) =>
      sort([
        { field: 'summary.weave.total_tokens', direction: 'desc' },
        { field, direction: 'asc' },
      ]);
    assert.match(compileCallsSelect({ ...q, sort_by: then('id') }, d, true).sql, /call_tokens/);
    assert.doesNotMatch(compileCallsSelect({ ...q, sort_by: then('started_at') }, d, true).sql, /call_tokens/);
    const byUser = where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'u-1' }] });
    assert.doesNotMatch(compileCallsSelect({ ...q, where: byUser }, d, true).sql, /call_tokens/);
    for (const filter of [{ trace_ids: ['t'] }, { parent_ids: ['p'] }, { call_ids: ['c'] }, { thread_ids: ['h'] }])
      assert.doesNotMatch(compileCallsSelect({ ...q, filter }, d, true).sql, /call_tokens/);
  }
});
