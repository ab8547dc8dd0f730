import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveTrainingConfig } from '../../../src/training/objective/effective-config.js';
import { POLICY_LEARNING_RATE_SCALE, resolveObjectiveConfig } from '../../../src/training/objective/config.js';

test('defaults (null config): CISPO with the [0, 5] clip window, §5.8 defaults', () => {
  const c = effectiveTrainingConfig(null);
  assert.equal(c.ppo, false);
  assert.equal(c.loss_fn, 'cispo');
  assert.equal(c.epsilon, 1.0);
  assert.equal(c.epsilon_high, 4.0);
  assert.deepEqual(c.ratio_clip_window, [0, 5]);
  assert.equal(c.learning_rate, 5e-6);
  assert.equal(c.policy_learning_rate, 5e-6 * POLICY_LEARNING_RATE_SCALE);
  assert.equal(c.scale_rewards, true);
  assert.equal(c.normalize_advantages, true);
  assert.equal(c.importance_sampling_level, 'token');
  assert.equal(c.kimi_k2_tau, null);
  assert.deepEqual(c.not_applied, []);
});

test('ppo: true (and loss_fn "ppo") → [0.8, 1.2]; epsilon_high follows epsilon', () => {
  assert.deepEqual(effectiveTrainingConfig({ ppo: true }).ratio_clip_window, [0.8, 1.2]);
  assert.deepEqual(effectiveTrainingConfig({ loss_fn: 'ppo', epsilon: null }).ratio_clip_window, [0.8, 1.2]);
  const c = effectiveTrainingConfig({ ppo: true, epsilon: 0.3 });
  assert.equal(c.epsilon_high, 0.3);
  assert.equal(effectiveTrainingConfig({ ppo: false, loss_fn: 'ppo' }).ppo, false);
  assert.equal(effectiveTrainingConfig({ loss_fn: 'cispo' }).ppo, false);
});

test('partner_k2_tau is an alias of kimi_k2_tau; kimi_k2_tau wins', () => {
  assert.equal(resolveObjectiveConfig({ partner_k2_tau: 0.5 }).kimiK2Tau, 0.5);
  assert.equal(resolveObjectiveConfig({ partner_k2_tau: 0.5, kimi_k2_tau: 0.25 }).kimiK2Tau, 0.25);
});

test('normalize_advantages false forces scale_rewards off; kl_penalty_coef reported as not applied', () => {
  const c = effectiveTrainingConfig({
    normalize_advantages: false,
    scale_rewards: true,
    kl_penalty_coef: 0.1,
    learning_rate: 1e-5,
  });
  assert.equal(c.scale_rewards, false);
  assert.deepEqual(c.not_applied, ['kl_penalty_coef']);
  assert.equal(c.policy_learning_rate, 1e-5 * POLICY_LEARNING_RATE_SCALE);
  // the Python worker applies it (worker/heddle_worker/objective.py)
  assert.deepEqual(effectiveTrainingConfig({ kl_penalty_coef: 0.1 }, 'worker:gpu-1').not_applied, []);
  assert.deepEqual(effectiveTrainingConfig({ kl_penalty_coef: 0.1 }, 'builtin').not_applied, ['kl_penalty_coef']);
});
