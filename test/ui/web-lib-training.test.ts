/** Unit tests for the training curves of the web app (web/src/lib/training.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCallsQuery, parseTracesSearch } from '../../web/src/lib/query.js';
import { metricCurves, rolloutsSearch, stepOf } from '../../web/src/lib/training.js';

test('one curve per metric name, a series per split, points by step; reward first', () => {
  const curves = metricCurves(
    [{ step: 1, metrics: { 'train/loss': 0.4, 'val/reward': 0.1 } }],
    [
      { step: 0, metrics: { 'val/reward': 0.2, 'val/data/step_num_trajectories': 4 } },
      { step: 1, metrics: { 'train/reward': 0.3, 'val/reward': 0.5, 'extra/reward': 1 } },
    ],
  );
  assert.deepEqual(
    curves.map((c) => c.name),
    ['reward', 'loss', 'data/step_num_trajectories'],
  );
  assert.deepEqual(curves[0], {
    name: 'reward',
    splits: ['train', 'val', 'extra'],
    // the later /log of step 1 overwrites the checkpoint's copy (docs/spec/training.md §4.5 step 4)
    points: [
      { step: 0, val: 0.2 },
      { step: 1, val: 0.5, train: 0.3, extra: 1 },
    ],
  });
});

test('keys without a split, empty names and non-finite values are left out', () => {
  const curves = metricCurves([], [{ step: 2, metrics: { reward: 1, 'val/': 2, '/x': 3, 'val/nan': Number.NaN } }]);
  assert.deepEqual(curves, []);
});

test("a step's rollouts: the traces page's field filter on attributes.step, compared as a number", () => {
  const search = parseTracesSearch(rolloutsSearch(3));
  assert.deepEqual(search, { q: 'attributes.step = 3' });
  assert.deepEqual(buildCallsQuery('acme/rl', search), {
    filter: { trace_roots_only: true },
    query: { $expr: { $eq: [{ $getField: 'attributes.step' }, { $literal: 3 }] } },
  });
});

test('steps from the curves: non-negative integers only', () => {
  assert.equal(stepOf(0), 0);
  assert.equal(stepOf('12'), 12);
  for (const bad of [-1, 1.5, '', ' ', 'step 2', null, undefined, Number.NaN]) assert.equal(stepOf(bad), null);
});
