/** Unit tests for the evaluation comparison's charts, baseline and score filter (web/src/lib/eval-compare.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deltaText, resultsFilter, scoreBars, scoreHistogram } from '../../web/src/lib/eval-compare.js';
import type { EvalResultsRow, EvalSummary, ScoreDim } from '../../web/src/lib/evals.js';

const binary: ScoreDim = { key: 'exact', path: null, field: 'scores.exact', label: 'exact', type: 'binary' };
const numeric: ScoreDim = {
  key: 'judge',
  path: 'score',
  field: 'scores.judge.score',
  label: 'judge.score',
  type: 'continuous',
};
const stats = (id: string, pass: number | null, mean: number | null) =>
  ({
    evaluation_call_id: id,
    scorer_stats: [
      { scorer_key: 'exact', path: null, value_type: 'binary', pass_rate: pass, numeric_mean: null },
      { scorer_key: 'judge', path: 'score', value_type: 'continuous', pass_rate: null, numeric_mean: mean },
    ],
  }) as unknown as EvalSummary;
const row = (scores: Record<string, Record<string, unknown>>): EvalResultsRow => ({
  row_digest: 'r',
  raw_data_row: null,
  evaluations: Object.entries(scores).map(([id, s]) => ({
    evaluation_call_id: id,
    trials: [{ scores: s } as never],
  })),
});

test("bars hold each run's aggregate, pass rates in percent; a run without the score has none", () => {
  const evals = [stats('a', 11 / 12, 7.5), stats('b', 1, 8)];
  assert.deepEqual(scoreBars(evals, ['a', 'b', 'c'], binary), { dim: 'exact', r0: 91.7, r1: 100, r2: null });
  assert.deepEqual(scoreBars(evals, ['b', 'a'], numeric), { dim: 'judge.score', r0: 8, r1: 7.5 });
});

test('a distribution: a bin per value for a few integers, equal ranges otherwise', () => {
  const rows = [
    row({ a: { judge: { score: 7 } }, b: { judge: { score: 9 } } }),
    row({ a: { judge: { score: 9 } }, b: { judge: { score: 9 } } }),
    row({ a: { judge: { score: 'n/a' } } }),
  ];
  assert.deepEqual(scoreHistogram(rows, ['a', 'b'], numeric), [
    { bin: '7', r0: 1, r1: 0 },
    { bin: '9', r0: 1, r1: 2 },
  ]);
  const spread = Array.from({ length: 20 }, (_, i) => row({ a: { judge: { score: i / 19 } } }));
  const bins = scoreHistogram(spread, ['a'], numeric, 4);
  assert.deepEqual(
    bins.map((b) => [b.bin, b.r0]),
    [
      ['0.00–0.25', 5],
      ['0.25–0.50', 5],
      ['0.50–0.75', 5],
      ['0.75–1.00', 5],
    ],
  );
  assert.deepEqual(scoreHistogram([row({ a: { judge: { score: 0.5 } } })], ['a'], numeric), [{ bin: '0.5', r0: 1 }]);
  assert.deepEqual(scoreHistogram([], ['a'], numeric), []);
  // booleans count as 1 and 0
  assert.deepEqual(scoreHistogram([row({ a: { exact: true } }), row({ a: { exact: false } })], ['a'], binary), [
    { bin: '0', r0: 1 },
    { bin: '1', r0: 1 },
  ]);
});

test('changes from the baseline, and the server filter of "rows where a score …"', () => {
  assert.equal(deltaText(binary, 1, 11 / 12), '+8.3 pts');
  assert.equal(deltaText(binary, 0.5, 0.5), '±0 pts');
  assert.equal(deltaText(numeric, 7.5, 8), '−0.500');
  assert.equal(deltaText(numeric, 9, 8), '+1');
  assert.equal(deltaText(numeric, null, 8), null);
  const field = { $getField: 'scores.exact' };
  assert.deepEqual(resultsFilter({ field: 'scores.exact', run: null, cond: 'fail', value: null }), {
    evaluation_call_id: null,
    query: { $expr: { $eq: [field, { $literal: false }] } },
  });
  assert.deepEqual(resultsFilter({ field: 'scores.exact', run: 'a', cond: 'lt', value: 3 }), {
    evaluation_call_id: 'a',
    query: { $expr: { $not: [{ $gte: [field, { $literal: 3 }] }] } },
  });
  assert.deepEqual(resultsFilter({ field: 'scores.exact', run: null, cond: 'gt', value: 3 })?.query, {
    $expr: { $gt: [field, { $literal: 3 }] },
  });
  assert.equal(resultsFilter({ field: 'scores.exact', run: null, cond: 'gt', value: null }), null);
});
