/** Unit tests for the dashboard's grouping of `/calls/stats` rows (web/src/features/dashboards/groups.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallStats } from '../../web/src/api/dashboard.js';
import { groupedView, groupLabel, MAX_SERIES, OTHER } from '../../web/src/features/dashboards/groups.js';

const T1 = '2025-01-01T00:00:00Z';
const T2 = '2025-01-02T00:00:00Z';

const stats = (call: CallStats['call_buckets'], usage: CallStats['usage_buckets'] = []): CallStats => ({
  start: T1,
  end: T2,
  granularity: 86_400,
  call_buckets: call,
  usage_buckets: usage,
});

test('labels join the values in dimension order; null reads (none)', () => {
  assert.equal(groupLabel({ op: 'chat', status: 'error' }, ['op', 'status']), 'chat · error');
  assert.equal(groupLabel({ status: 'error', model: null }, ['model', 'status']), '(none) · error');
});

test('groups: totals per group, most calls first; usage rows of several models add up per group', () => {
  const view = groupedView(
    stats(
      [
        { timestamp: T1, op: 'a', sum_call_count: 1, sum_error_count: 1, p95_latency_ms: 10 },
        { timestamp: T1, op: 'b', sum_call_count: 3, sum_error_count: 0, p95_latency_ms: 20 },
        { timestamp: T2, op: 'a', sum_call_count: 4, sum_error_count: 2, p95_latency_ms: null },
        { timestamp: T2, op: 'b', sum_call_count: 0, sum_error_count: 0, p95_latency_ms: null },
      ],
      [
        { timestamp: T1, model: 'm1', op: 'a', sum_total_tokens: 5, sum_total_cost: 0.5 },
        { timestamp: T1, model: 'm2', op: 'a', sum_total_tokens: 7, sum_total_cost: 0.25 },
      ],
    ),
    ['op'],
  );
  assert.deepEqual(view.groups, [
    { label: 'a', calls: 5, errors: 3, tokens: 12, cost: 0.75 },
    { label: 'b', calls: 3, errors: 0, tokens: 0, cost: 0 },
  ]);
  assert.deepEqual(view.series, ['a', 'b']);
  assert.deepEqual(view.byTime, [
    {
      timestamp: T1,
      'calls:a': 1,
      'errors:a': 1,
      'p95:a': 10,
      'calls:b': 3,
      'errors:b': 0,
      'p95:b': 20,
      'tokens:a': 12,
      'cost:a': 0.75,
    },
    { timestamp: T2, 'calls:a': 4, 'errors:a': 2, 'calls:b': 0, 'errors:b': 0 },
  ]);
});

test(`more than ${MAX_SERIES} groups: the smallest fold into ${OTHER} for sums, and get no latency line`, () => {
  const rows = Array.from({ length: MAX_SERIES + 2 }, (_, i) => ({
    timestamp: T1,
    op: `op${i}`,
    sum_call_count: 100 - i,
    sum_error_count: 1,
    p95_latency_ms: i,
  }));
  const view = groupedView(stats(rows), ['op']);
  assert.equal(view.groups.length, MAX_SERIES + 2);
  assert.equal(view.series.length, MAX_SERIES + 1);
  assert.equal(view.series.at(-1), OTHER);
  const row = view.byTime[0]!;
  assert.equal(row[`calls:${OTHER}`], 100 - MAX_SERIES + (100 - MAX_SERIES - 1));
  assert.equal(row[`errors:${OTHER}`], 2);
  assert.equal(row[`p95:${OTHER}`], undefined);
  assert.equal(row[`p95:op${MAX_SERIES}`], undefined);
  assert.equal(row['p95:op0'], 0);
});
