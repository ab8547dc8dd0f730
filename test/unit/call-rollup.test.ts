import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  binValue,
  histogramPercentile,
  LATENCY_RELATIVE_ERROR,
  latencyBin,
  RollupDelta,
  SCOPE_ALL,
  SCOPE_MODEL,
  SCOPE_NO_USAGE,
} from '../../src/domain/call-rollup.js';
import { percentile } from '../../src/domain/metric-stats.js';

/** The call roll-up's pure parts (docs/call-rollups.md): contributions, bins and the percentile bound. */

test('latencies within ±16 ms keep exact bins; larger ones read back within the stated bound', () => {
  for (let ms = -16; ms <= 16; ms += 1) assert.equal(binValue(latencyBin(ms)), ms);
  assert.ok(LATENCY_RELATIVE_ERROR < 0.0433 && LATENCY_RELATIVE_ERROR > 0.04329);
  for (let ms = 17; ms < 1e10; ms = Math.ceil(ms * 1.013)) {
    for (const v of [ms, -ms]) {
      const back = binValue(latencyBin(v));
      assert.ok(Math.abs(back - v) <= LATENCY_RELATIVE_ERROR * Math.abs(v), `${v} reads as ${back}`);
    }
  }
  // bins sort as their values do
  const values = [-5_000_000, -17, -16, -1, 0, 1, 16, 17, 18, 1000, 1001, 3_600_000];
  const bins = values.map(latencyBin);
  assert.deepEqual(
    [...bins].sort((a, b) => a - b),
    bins,
  );
});

test('histogram percentiles interpolate as the exact ones do, within the bound for non-negative values', () => {
  const values = [0, 3, 17, 250, 251, 999, 1000, 4321, 60_000, 60_001, 3_600_000];
  const bins = new Map<number, number>();
  for (const v of values) bins.set(latencyBin(v), (bins.get(latencyBin(v)) ?? 0) + 1);
  for (const p of [0, 1, 25, 50, 90, 95, 99, 100]) {
    const exact = percentile(values, p)!;
    const approx = histogramPercentile(bins, p)!;
    assert.ok(Math.abs(approx - exact) <= LATENCY_RELATIVE_ERROR * exact + 1e-9, `p${p}: ${approx} vs ${exact}`);
  }
  assert.equal(histogramPercentile(new Map(), 50), null);
  assert.equal(histogramPercentile(new Map([[latencyBin(5), 0]]), 50), null);
  assert.equal(histogramPercentile(new Map([[latencyBin(7), 4]]), 99), 7);
});

test('a row contributes under every scope; adding and subtracting it leaves nothing', () => {
  const row = {
    started_at: 3_600_000_000 * 10 + 5,
    deleted_at: null,
    op_name: 'weave:///a/b/op/f:v1',
    ended_at: 3_600_000_000 * 10 + 5 + 2_500_000,
    exception: 'boom',
    summary: JSON.stringify({
      usage: {
        m1: { prompt_tokens: 10, input_tokens: 1, completion_tokens: 5, total_tokens: 16 },
        m2: { output_tokens: 3 },
      },
    }),
  };
  const delta = new RollupDelta();
  delta.add('a/b', row, 1);
  const rows = delta.statsRows();
  assert.deepEqual(
    rows.map((r) => [
      r.scope,
      r.model,
      r.calls,
      r.errors,
      r.latency_sum,
      r.usage_rows,
      r.input_tokens,
      r.output_tokens,
      r.total_tokens,
    ]),
    [
      [SCOPE_ALL, '', 1, 1, 2500, 0, 0, 0, 0],
      [SCOPE_MODEL, 'm1', 1, 1, 2500, 1, 11, 5, 16],
      [SCOPE_MODEL, 'm2', 1, 1, 2500, 1, 0, 3, 0],
    ],
  );
  assert.ok(rows.every((r) => r.hour === 36_000_000_000 && r.status === 'error'));
  assert.equal(delta.latencyRows().length, 3);
  delta.add('a/b', row, -1);
  assert.ok(delta.empty);
  // running, no usage: counted once under "no usage", without latency
  const running = new RollupDelta();
  running.add('a/b', { ...row, ended_at: null, exception: null, summary: null }, 1);
  assert.deepEqual(
    running.statsRows().map((r) => [r.scope, r.status, r.calls, r.latency_count]),
    [
      [SCOPE_ALL, 'running', 1, 0],
      [SCOPE_NO_USAGE, 'running', 1, 0],
    ],
  );
  // not started, or deleted: nothing
  const none = new RollupDelta();
  none.add('a/b', { ...row, started_at: null }, 1);
  none.add('a/b', { ...row, deleted_at: 1 }, 1);
  assert.ok(none.empty);
});

test('the usage of a parsed summary (call-service.ts end parts) counts as the summary text does', () => {
  const summaries = [
    '{}',
    'null',
    '{"usage":null}',
    '{"usage":[1,2]}',
    '{"usage":{"m":null,"n":"x"}}',
    '{"usage":{"10":{"prompt_tokens":1},"2":{"input_tokens":2.5},"__proto__":{"output_tokens":-0}}}',
    '{"usage":{"m":{"prompt_tokens":"7","total_tokens":null,"cache_read_input_tokens":12345678901234567890}}}',
    '{"weave":{"usage":{"m":{"prompt_tokens":3}}},"usage":{"a":{"completion_tokens":4,"total_tokens":4}}}',
    '{"status":"text with \\"usage\\" in it"}',
  ];
  for (const summary of summaries) {
    const row = {
      started_at: 3_600_000_000 * 5,
      deleted_at: null,
      op_name: 'op',
      ended_at: 3_600_000_000 * 5 + 1_234_000,
      exception: null,
      summary,
    };
    const fromText = new RollupDelta();
    const fromValue = new RollupDelta();
    fromText.add('a/b', row, 1);
    fromValue.add('a/b', { ...row, parsed_summary: JSON.parse(summary) }, 1);
    assert.deepEqual(fromValue.statsRows(), fromText.statsRows(), summary);
    assert.deepEqual(fromValue.latencyRows(), fromText.latencyRows(), summary);
  }
});
