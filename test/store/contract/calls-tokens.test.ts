import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallPart, CallsQuery, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, indexAll, sort, start, where } from './parts.js';
import { uiTokens, USAGES, usageSummary } from './tokens-fixture.js';

/**
 * `summary.weave.total_tokens` (src/store/sql/calls-query/tokens.ts) is the web UI's token total,
 * `tokenUsage(call).total` (web/src/lib/call.ts), computed in SQL: each call's total is checked
 * against that function with an equality, and sorts and comparisons against the order and the
 * matches that function gives.
 */

/** The ids in the order a sort by total tokens gives: NULLs last both ways, ties by id descending. */
function expectedOrder(totals: Map<string, number | null>, dir: 'asc' | 'desc'): string[] {
  return [...totals.entries()]
    .sort(([, a], [, b]) => {
      if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
      return a === b ? 0 : a < b === (dir === 'asc') ? -1 : 1;
    })
    .map(([id]) => id);
}

forEachAdapter('summary.weave.total_tokens', (store) => {
  const T0 = 1_700_000_000_000_000;

  /** Writes calls with every usage shape (some twice, for ties) and returns each call's UI total. */
  const seed = async (s: TraceStore, p: string): Promise<Map<string, number | null>> => {
    const totals = new Map<string, number | null>();
    const parts: CallPart[] = [];
    for (let i = 0; i < USAGES.length * 2; i++) {
      const id = `t-${String(i).padStart(2, '0')}`;
      parts.push(start(p, id, { started_at: T0 + i * 1_000 }));
      // a few stay running: no summary at all
      if (i % 13 === 12) {
        totals.set(id, null);
        continue;
      }
      const summary = usageSummary(i, i);
      parts.push(end(p, id, { ended_at: T0 + i * 1_000 + 500, summary }));
      totals.set(id, uiTokens(summary));
    }
    await s.calls.write(parts);
    return totals;
  };

  test(
    'each call’s total is the UI’s; sorts put NULLs last and break ties by id',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const totals = await seed(s, p);
      // the fixture holds ties, NULLs and fractional and negative totals
      const values = [...totals.values()];
      assert.ok(values.filter((v) => v === null).length >= 4);
      assert.ok(new Set(values).size < values.length - 4);
      assert.ok(values.includes(2.5) && values.includes(-4) && values.includes(0));
      for (const [id, total] of totals) {
        if (total === null) continue;
        const q = where({ $eq: [{ $getField: 'summary.weave.total_tokens' }, { $literal: total }] });
        const matched = await ids(s, { project_id: p, where: q });
        assert.ok(matched.includes(id), `${id}: ${total}`);
        const expected = [...totals].filter(([, t]) => t === total).map(([i]) => i);
        assert.deepEqual(matched.sort(), expected.sort(), `${id}: ${total}`);
      }
      for (const direction of ['asc', 'desc'] as const) {
        const byTokens = sort([{ field: 'summary.weave.total_tokens', direction }]);
        const expected = expectedIds(totals, direction);
        assert.deepEqual(await ids(s, { project_id: p, sort_by: byTokens }), expected, direction);
        assert.deepEqual(
          await ids(s, { project_id: p, sort_by: byTokens, limit: 7, offset: 3 }),
          expected.slice(3, 10),
        );
      }
    }),
  );

  test(
    'sums in JavaScript’s key order and doubles: large integers, fractions, index keys, huge numbers',
    guard(async () => {
      const s = store();
      const p = freshProject();
      // raw texts: the key order as written (JSON.stringify would move index keys first itself)
      const texts: Record<string, string> = {
        // 2^53 + 1 parses to 2^53 in JavaScript; exact integer arithmetic would give 2^53 + 2
        big: '{"usage":{"m":{"prompt_tokens":9007199254740993,"completion_tokens":1}}}',
        // (0.1 + 0.2) + 0.3 = 0.6000000000000001 left to right; a compensated sum gives 0.6
        frac: '{"usage":{"a":{"total_tokens":0.1},"b":{"total_tokens":0.2},"c":{"total_tokens":0.3}}}',
        // JavaScript reads "100" first: (0.1 + 0.3) + 0.2, not (0.3 + 0.2) + 0.1 as written
        index: '{"usage":{"pc":{"total_tokens":0.3},"pb":{"total_tokens":0.2},"100":{"total_tokens":0.1}}}',
        arr: '{"usage":[{"total_tokens":0.3},{"total_tokens":0.2},{"total_tokens":0.1}]}',
        // past the double range: Infinity in JavaScript, which counts as 0
        inf: '{"usage":{"m":{"total_tokens":1e400,"prompt_tokens":5}}}',
        neg: '{"usage":{"m":{"total_tokens":-0,"input_tokens":2,"output_tokens":0.5}}}',
      };
      const parts: CallPart[] = [];
      for (const [id, summary] of Object.entries(texts))
        parts.push(start(p, id, { started_at: T0 }), end(p, id, { ended_at: T0 + 1, summary }));
      await s.calls.write(parts);
      const field = { $getField: 'summary.weave.total_tokens' };
      for (const [id, summary] of Object.entries(texts)) {
        const total = uiTokens(summary);
        assert.ok(total !== null && Number.isFinite(total), id);
        const matched = await ids(s, { project_id: p, where: where({ $eq: [field, { $literal: total }] }) });
        assert.ok(matched.includes(id), `${id}: ${total} among ${JSON.stringify(matched)}`);
      }
      assert.equal(uiTokens(texts.big!), 9007199254740992);
      assert.equal(uiTokens(texts.frac!), 0.6000000000000001);
      assert.equal(uiTokens(texts.index!), 0.1 + 0.3 + 0.2);
    }),
  );

  test(
    'comparisons: numbers, string literals (never), $eq null (no usage)',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const totals = await seed(s, p);
      const field = { $getField: 'summary.weave.total_tokens' };
      const cases: Array<[unknown, (t: number | null) => boolean]> = [
        [{ $gt: [field, { $literal: 9 }] }, (t) => t !== null && t > 9],
        [{ $gte: [field, { $literal: 10 }] }, (t) => t !== null && t >= 10],
        // a number field against a string literal is a mismatched kind: no match (docs/spec/calls.md §5.3)
        [{ $gte: [field, { $literal: '10' }] }, () => false],
        [{ $lt: [field, { $literal: 0 }] }, (t) => t !== null && t < 0],
        [{ $not: [{ $gt: [field, { $literal: 0 }] }] }, (t) => t !== null && t <= 0], // $not of NULL is NULL
        [{ $eq: [field, { $literal: null }] }, (t) => t === null],
      ];
      for (const [expr, keep] of cases) {
        const matched = await ids(s, {
          project_id: p,
          where: where(expr),
          sort_by: sort([{ field: 'id', direction: 'asc' }]),
        });
        const expected = [...totals].filter(([, t]) => keep(t)).map(([i]) => i);
        assert.deepEqual(matched, expected.sort(), JSON.stringify(expr));
      }
    }),
  );

  test(
    'a page sorted by tokens is the same before, during and after the call indexer',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const totals = await seed(s, p);
      const check = async (): Promise<void> => {
        for (const direction of ['asc', 'desc'] as const) {
          const q: CallsQuery = { project_id: p, sort_by: sort([{ field: 'summary.weave.total_tokens', direction }]) };
          assert.deepEqual(await ids(s, { ...q, limit: 5 }), expectedIds(totals, direction).slice(0, 5));
        }
      };
      await check();
      await s.callText.step(5);
      await check();
      await indexAll(s);
      await check();
    }),
  );
});

/** expectedOrder with ties broken by id descending (calls-query/select.ts `orderTerms`). */
function expectedIds(totals: Map<string, number | null>, dir: 'asc' | 'desc'): string[] {
  const byId = new Map([...totals].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)));
  return expectedOrder(byId, dir);
}
