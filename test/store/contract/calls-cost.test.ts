import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costExtras } from '../../../src/services/call-extras.js';
import { StorePriceLookup } from '../../../src/services/price-table.js';
import type { CallPart, CallRow, TraceStore } from '../../../src/store/types.js';
import { totalCost, type Call } from '../../../web/src/lib/call.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, ids, rows, sort, start, where } from './parts.js';
import { rng } from './rollup-fixture.js';
import { DAY, price, T0, usageOf } from './cost-fixture.js';

/**
 * `summary.weave.total_cost` (src/store/sql/calls-query/cost.ts) is the web UI's `totalCost(call)`
 * (web/src/lib/call.ts) over the `summary.weave.costs` the server returns (src/services/call-extras.ts
 * with the project's price lookup), computed in SQL: each call's cost is checked against those
 * functions with an equality, and sorts against their order, on both stores.
 */
forEachAdapter('summary.weave.total_cost', (store) => {
  /** The UI's cost of each call of the project (rows as the store returns them, priced by the service's lookup). */
  const uiCosts = async (s: TraceStore, p: string): Promise<Map<string, number | null>> => {
    const book = await new StorePriceLookup(s.costs).forProject(p);
    const out = new Map<string, number | null>();
    for (const row of await rows(s, { project_id: p })) {
      // the weave object as the server returns it: through JSON, as the browser receives it
      const weave = JSON.parse(JSON.stringify(costExtras(row as CallRow, book))) as Record<string, unknown>;
      const summary = { ...(JSON.parse(row.summary ?? '{}') as object), weave };
      out.set(row.id, totalCost({ summary } as Call));
    }
    return out;
  };

  test(
    'each call’s cost is the UI’s; sorts put unpriced calls last and break ties by id',
    guard(async () => {
      const s = store();
      const p = freshProject();
      await s.costs.insert(p, [
        price(p, 'pr-1', 'm-own', T0 - 10 * DAY, [1e-6, 2e-6, 1e-7, 3e-6]),
        price(p, 'pr-2', 'm-own', T0 + 20 * DAY, [3e-6, 4e-6, 2e-7, 1e-6]),
        // the same effective date: the first by created_at wins
        price(p, 'pr-3', 'm-own', T0 + 30 * DAY, [7e-6, 1e-6, 0, 0], 5),
        price(p, 'pr-4', 'm-own', T0 + 30 * DAY, [9e-6, 9e-6, 0, 0], 9),
        // a project row beside the defaults of gpt-4o
        price(p, 'pr-5', 'gpt-4o', T0 + 40 * DAY, [1.1e-6, 3.3e-6, 0.1e-6, 0]),
        price(p, 'pr-6', 'm-future', T0 + 1000 * DAY, [5e-6, 5e-6, 5e-6, 5e-6]),
        price(p, 'pr-7', '3', T0, [0.3, 0.7, 0.1, 0.2]),
        // sums whose rounding depends on the order: JavaScript adds left to right, in its key order
        price(p, 'pr-a', 'pa', T0 - DAY, [0.1, 0, 0, 0]),
        price(p, 'pr-b', 'pb', T0 - DAY, [0.2, 0, 0, 0]),
        price(p, 'pr-c', 'pc', T0 - DAY, [0.3, 0, 0, 0]),
        price(p, 'pr-100', '100', T0 - DAY, [0.1, 0, 0, 0]),
      ]);
      const rnd = rng(4_040);
      const parts: CallPart[] = [];
      for (let i = 0; i < 60; i++) {
        const id = `k-${String(i).padStart(2, '0')}`;
        parts.push(start(p, id, { started_at: T0 + (i - 10) * 2 * DAY }));
        if (i % 11 === 7) continue;
        const summary = i % 9 === 4 ? '{}' : JSON.stringify({ usage: usageOf(rnd), n: i });
        parts.push(end(p, id, { ended_at: T0 + (i - 10) * 2 * DAY + 1, summary }));
      }
      // the text as written (JSON.stringify would put an index key first itself)
      const ordered = (id: string, models: string[]): CallPart[] => [
        start(p, id, { started_at: T0 }),
        end(p, id, { summary: `{"usage":{${models.map((m) => `"${m}":{"prompt_tokens":1}`).join(',')}}}` }),
      ];
      // (0.1 + 0.2) + 0.3 = 0.6000000000000001, not 0.6 as a compensated sum; and the index key "100"
      // first, as JavaScript enumerates it, where SQLite keeps the written order and PostgreSQL puts
      // shorter keys first: (0.1 + 0.3) + 0.2 or (0.1 + 0.2) + 0.3, not (0.3 + 0.2) + 0.1 = 0.6
      parts.push(...ordered('sum-abc', ['pa', 'pb', 'pc']), ...ordered('sum-cb100', ['pc', 'pb', '100']));
      // ties: the same usage twice
      parts.push(
        start(p, 'tie-a', { started_at: T0 }),
        end(p, 'tie-a', { summary: '{"usage":{"m-own":{"prompt_tokens":10}}}' }),
      );
      parts.push(
        start(p, 'tie-b', { started_at: T0 }),
        end(p, 'tie-b', { summary: '{"usage":{"m-own":{"prompt_tokens":10}}}' }),
      );
      await s.calls.write(parts);
      const costs = await uiCosts(s, p);
      const values = [...costs.values()];
      assert.ok(values.filter((v) => v === null).length >= 5);
      assert.ok(values.filter((v) => v !== null && !Number.isInteger(v)).length >= 20);
      // a compensated sum (SQLite's SUM) would give 0.6
      assert.equal(costs.get('sum-abc'), 0.1 + 0.2 + 0.3);
      assert.notEqual(costs.get('sum-abc'), 0.6);
      assert.equal(costs.get('sum-cb100'), 0.1 + 0.3 + 0.2);
      const field = { $getField: 'summary.weave.total_cost' };
      for (const [id, cost] of costs) {
        const matched = await ids(s, { project_id: p, where: where({ $eq: [field, { $literal: cost }] }) });
        const expected = [...costs].filter(([, c]) => c === cost).map(([i]) => i);
        assert.deepEqual(matched.sort(), expected.sort(), `${id}: ${cost}`);
      }
      for (const direction of ['asc', 'desc'] as const) {
        const byId = [...costs].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
        const expected = byId
          .sort(([, a], [, b]) => {
            if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
            return a === b ? 0 : a < b === (direction === 'asc') ? -1 : 1;
          })
          .map(([i]) => i);
        const q = { project_id: p, sort_by: sort([{ field: 'summary.weave.total_cost', direction }]) };
        assert.deepEqual(await ids(s, q), expected, direction);
        assert.deepEqual(await ids(s, { ...q, limit: 5, offset: 2 }), expected.slice(2, 7));
      }
      // prices change after the calls: the cost follows them
      await s.costs.insert(p, [price(p, 'pr-8', 'm-none', T0 - 100 * DAY, [2e-6, 2e-6, 2e-6, 2e-6])]);
      const after = await uiCosts(s, p);
      assert.notDeepEqual([...after.values()], values);
      const q = { project_id: p, sort_by: sort([{ field: 'summary.weave.total_cost', direction: 'desc' as const }]) };
      const expected = [...after]
        .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
        .sort(([, a], [, b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a))
        .map(([i]) => i);
      assert.deepEqual(await ids(s, q), expected);
    }),
  );
});
