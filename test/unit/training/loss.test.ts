import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveObjectiveConfig } from '../../../src/training/objective/config.js';
import { type LossInputs, rlLoss } from '../../../src/training/objective/loss.js';
import { initBackend, tf } from '../../../src/training/policy/tf-backend.js';

before(async () => {
  await initBackend();
});

const close = (actual: number, expected: number, tol = 1e-4) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${actual} ≉ ${expected}`);

/** Two trainable tokens in one segment: ℓ = [−1, −2], ℓ° = [−1.5, −1] → δ = [0.5, −1]; A = [1, −1]. */
function inputs(overrides: Partial<Record<keyof LossInputs, number[]>> = {}): LossInputs {
  const v = {
    logprobs: [-1, -2],
    old: [-1.5, -1],
    hasOld: [1, 1],
    mask: [1, 1],
    weights: [1, 1],
    advantages: [1, -1],
    tisWeight: [1, 1],
    ...overrides,
  };
  return {
    logprobs: tf.tensor1d(v.logprobs),
    old: tf.tensor1d(v.old),
    hasOld: tf.tensor1d(v.hasOld),
    mask: tf.tensor1d(v.mask),
    weights: tf.tensor1d(v.weights),
    advantages: tf.tensor1d(v.advantages),
    tisWeight: tf.tensor1d(v.tisWeight),
    segments: tf.tensor2d([v.logprobs.map(() => 1)]),
  };
}

function loss(raw: Record<string, unknown>, inp = inputs()): { loss: number; frac: number } {
  const out = rlLoss(inp, resolveObjectiveConfig(raw));
  return { loss: out.loss.dataSync()[0]!, frac: out.fracClipped.dataSync()[0]! };
}

const r = [Math.exp(0.5), Math.exp(-1)];
const DEN = 2 + 1e-6;

test('CISPO (default): −sg[clip(ρ,0,5)]·A·ℓ, mean over trainable tokens', () => {
  close(loss({}).loss, (-(r[0]! * 1 * -1) - r[1]! * -1 * -2) / DEN);
  assert.equal(loss({}).frac, 0);
});

test('PPO: −min(ρA, clip(ρ,0.8,1.2)A); both ratios outside the window are counted as clipped', () => {
  const got = loss({ ppo: true });
  close(got.loss, (-Math.min(r[0]!, 1.2) - Math.min(-r[1]!, -0.8)) / DEN);
  close(got.frac, 2 / DEN);
});

test('importance_sampling_level sequence / average / geometric_average', () => {
  const rs = Math.exp(-0.25); // exp(mean δ) = exp((0.5 − 1)/2)
  close(loss({ importance_sampling_level: 'sequence' }).loss, (-(rs * -1) - rs * 2) / DEN);
  const avg = r.map((x) => (x + rs) / 2);
  close(loss({ importance_sampling_level: 'average' }).loss, (avg[0]! - avg[1]! * 2) / DEN);
  const geo = [Math.exp((0.5 - 0.25) / 2), Math.exp((-1 - 0.25) / 2)];
  close(loss({ importance_sampling_level: 'geometric_average' }).loss, (geo[0]! - geo[1]! * 2) / DEN);
});

test('max_negative_advantage_importance_sampling_weight caps every ratio', () => {
  close(loss({ max_negative_advantage_importance_sampling_weight: 1 }).loss, (1 - r[1]! * 2) / DEN);
});

test('mask_prob_ratio zeroes ratios outside the window (PPO: only the clipped branch is left)', () => {
  // ρ → 0 for both: L = −min(0, clip(0)·A) = −min(0, 0.8·A) → [0, 0.8].
  close(loss({ ppo: true, mask_prob_ratio: true }).loss, 0.8 / DEN);
  // Inside the CISPO window nothing changes.
  close(loss({ mask_prob_ratio: true }).loss, loss({}).loss);
});

test('kimi_k2_tau (and its alias partner_k2_tau) subtracts τ·δ from the advantages', () => {
  const expected = (-(r[0]! * 0.75 * -1) - r[1]! * -0.5 * -2) / DEN;
  close(loss({ kimi_k2_tau: 0.5 }).loss, expected);
  close(loss({ partner_k2_tau: 0.5 }).loss, expected);
});

test('weights and mask: masked tokens do not count; a missing old log-prob means ratio 1', () => {
  const masked = loss({}, inputs({ mask: [1, 0], weights: [2, 1] })).loss;
  close(masked, (2 * r[0]!) / (1 + 1e-6));
  const noOld = loss({}, inputs({ hasOld: [0, 1] })).loss;
  close(noOld, (1 - r[1]! * 2) / DEN);
  // The truncated-importance-sampling factor (computed per token by the job) multiplies L_t.
  close(loss({}, inputs({ tisWeight: [0.5, 0.5] })).loss, 0.5 * loss({}).loss);
});

/** Loss as a function of logits z [T, V], ℓ_t = log softmax(z_t)[target_t]. */
function lossOfLogits(cfg: Record<string, unknown>, targets: number[], fixed: Omit<LossInputs, 'logprobs'>) {
  return (z: tf.Tensor) => {
    const logp = tf.logSoftmax(z);
    const lp = tf.sum(tf.mul(logp, tf.oneHot(tf.tensor1d(targets, 'int32'), z.shape[1] as number)), -1) as tf.Tensor1D;
    return rlLoss({ ...fixed, logprobs: lp }, resolveObjectiveConfig(cfg)).loss;
  };
}

function finiteDifference(f: (z: tf.Tensor) => tf.Tensor, z: number[][], eps = 1e-2): number[][] {
  return z.map((row, i) =>
    row.map((_, j) => {
      const at = (d: number) =>
        tf.tidy(
          () => f(tf.tensor2d(z.map((r2, a) => r2.map((x, b) => (a === i && b === j ? x + d : x))))).dataSync()[0]!,
        );
      return (at(eps) - at(-eps)) / (2 * eps);
    }),
  );
}

test('gradient check: PPO loss (token and sequence level) vs central finite differences', () => {
  const z = [
    [0.3, -0.2, 0.1, 0.05],
    [0.0, 0.4, -0.3, 0.2],
    [0.1, 0.1, -0.1, 0.3],
  ];
  const targets = [1, 2, 3];
  const fixed = {
    old: tf.tensor1d([-1.35, -1.75, -1.2]),
    hasOld: tf.tensor1d([1, 1, 1]),
    mask: tf.tensor1d([1, 1, 1]),
    weights: tf.tensor1d([1, 0.5, 1.5]),
    advantages: tf.tensor1d([1, -0.5, 0.8]),
    tisWeight: tf.tensor1d([1, 1, 1]),
    segments: tf.tensor2d([
      [1, 1, 0],
      [0, 0, 1],
    ]),
  };
  for (const cfg of [
    { ppo: true, epsilon: 0.5 },
    { ppo: true, epsilon: 0.5, importance_sampling_level: 'sequence' },
  ]) {
    const f = lossOfLogits(cfg, targets, fixed);
    const analytic = tf.grad(f)(tf.tensor2d(z)).arraySync() as number[][];
    const numeric = finiteDifference(f, z);
    analytic.flat().forEach((g, k) => close(g, numeric.flat()[k]!, 2e-3));
    assert.ok(
      analytic.flat().some((g) => Math.abs(g) > 1e-2),
      'gradient is not trivially zero',
    );
  }
});

test('gradient check: CISPO treats the clipped ratio as a constant weight (sg)', () => {
  const z = [
    [0.3, -0.2, 0.1],
    [0.0, 0.4, -0.3],
  ];
  const targets = [1, 2];
  const fixed = {
    old: tf.tensor1d([-1.0, -1.6]),
    hasOld: tf.tensor1d([1, 1]),
    mask: tf.tensor1d([1, 1]),
    weights: tf.tensor1d([1, 1]),
    advantages: tf.tensor1d([1, -1]),
    tisWeight: tf.tensor1d([1, 1]),
    segments: tf.tensor2d([[1, 1]]),
  };
  const f = lossOfLogits({}, targets, fixed);
  const analytic = tf.grad(f)(tf.tensor2d(z)).arraySync() as number[][];
  // Surrogate with the ratio frozen at its current value: −c_t·A_t·ℓ_t / (Σm + 1e-6).
  const lp = tf.tidy(
    () =>
      tf
        .sum(tf.mul(tf.logSoftmax(tf.tensor2d(z)), tf.oneHot(tf.tensor1d(targets, 'int32'), 3)), -1)
        .arraySync() as number[],
  );
  const c = lp.map((l, t) => Math.exp(l - [-1.0, -1.6][t]!));
  const frozen = (zz: tf.Tensor) => {
    const l = tf.sum(tf.mul(tf.logSoftmax(zz), tf.oneHot(tf.tensor1d(targets, 'int32'), 3)), -1);
    return tf.div(tf.neg(tf.sum(tf.mul(l, tf.tensor1d([c[0]! * 1, c[1]! * -1])))), 2 + 1e-6);
  };
  const numeric = finiteDifference(frozen, z);
  analytic.flat().forEach((g, k) => close(g, numeric.flat()[k]!, 2e-3));
});

test('gradients flow with every ratio option on (mask_prob_ratio must not put comparison ops on the tape)', () => {
  // (kimi_k2_tau is left out: its sg[δ] makes the surrogate's gradient differ from the loss's derivative by design.)
  const cfg = {
    ppo: true,
    mask_prob_ratio: true,
    max_negative_advantage_importance_sampling_weight: 2,
    importance_sampling_level: 'geometric_average',
  };
  const fixed = {
    old: tf.tensor1d([-1.1, -2.0]),
    hasOld: tf.tensor1d([1, 1]),
    mask: tf.tensor1d([1, 1]),
    weights: tf.tensor1d([1, 1]),
    advantages: tf.tensor1d([1, -1]),
    tisWeight: tf.tensor1d([1, 1]),
    segments: tf.tensor2d([[1, 1]]),
  };
  const z = [
    [0.3, -0.2, 0.1],
    [0.0, 0.4, -0.3],
  ];
  const f = lossOfLogits(cfg, [1, 2], fixed);
  const analytic = tf.grad(f)(tf.tensor2d(z)).arraySync() as number[][];
  const numeric = finiteDifference(f, z, 1e-3);
  analytic.flat().forEach((g, k) => close(g, numeric.flat()[k]!, 5e-3));
  assert.ok(
    analytic.flat().some((g) => Math.abs(g) > 1e-2),
    'gradient is not trivially zero',
  );
});
