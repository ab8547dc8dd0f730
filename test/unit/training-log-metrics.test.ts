import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeLogMetrics } from '../../src/services/training/log-metrics.js';

/** §7 metrics as a pure function (docs/spec/training.md §11 items 24–26). */

const t = (reward: number, metrics: Record<string, unknown> = {}) => ({ reward, metrics });

test('item 24: rewards [1,0] and [1,1] give reward 0.75 and reward_std_dev 0.25', () => {
  const m = computeLogMetrics('val', [{ trajectories: [t(1), t(0)] }, { trajectories: [t(1), t(1)] }]);
  assert.equal(m['val/reward'], 0.75);
  assert.equal(m['val/reward_std_dev'], 0.25);
  assert.equal(m['val/data/step_num_groups_trainable'], 1);
});

test('item 25: exception_rate = E / (T + E) across groups; booleans average as 0/1', () => {
  const m = computeLogMetrics('train', [
    { trajectories: [t(1, { win: true }), t(0, { win: false })], exceptions: [{}, {}] },
    { trajectories: [t(0.5, { win: true })], exceptions: [{}] },
  ]);
  assert.equal(m['train/exception_rate'], 3 / 6);
  assert.equal(m['train/win'], 2 / 3);
  assert.equal(m['train/data/step_num_trajectories'], 6);
  // a group of one trajectory has no std dev; the first group's population std is 0.5
  assert.equal(m['train/reward_std_dev'], 0.5);
});

test('item 26 (metric rules): keys average over the trajectories that have them; built-in names win; NaN dropped; group metrics once per non-empty group', () => {
  const m = computeLogMetrics('val', [
    {
      trajectories: [t(1, { reward: 99, only: 4 }), { reward: 0, metrics: {}, auto_metrics: { auto: 1 } }],
      metrics: { g: 1 },
    },
    { trajectories: [], metrics: { g: 100 } },
    { trajectories: [t(0, { nan: Number.NaN })], metrics: { g: 3 } },
  ]);
  assert.equal(m['val/reward'], 1 / 3);
  assert.equal(m['val/only'], 4);
  assert.equal(m['val/auto'], 1);
  assert.equal(m['val/group_metric_g'], 2);
  assert.equal('val/nan' in m, false);
});

test('an empty list gives only reward_std_dev 0 (§4.5)', () => {
  assert.deepEqual(computeLogMetrics('val', []), { 'val/reward_std_dev': 0 });
});
