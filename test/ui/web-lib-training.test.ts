/** Unit tests for the training curves of the web app (web/src/lib/training.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricCurves } from '../../web/src/lib/training.js';

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
