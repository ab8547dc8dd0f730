/**
 * The per-row RL loss on tfjs tensors (docs/spec/training.md §10.3–10.6), so gradients flow into the
 * current log-probs `ℓ`. Everything else (advantages, weights, masks, old log-probs) is constant.
 */
import { tf } from '../policy/tf-backend.js';
import type { ObjectiveConfig } from './config.js';

/** `sg[x]`: the value of x with a zero gradient (tfjs has no stopGradient op). */
export const stopGradient = tf.customGrad(((x: tf.Tensor) => ({
  value: tf.clone(x),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
})) as Parameters<typeof tf.customGrad>[0]) as (x: tf.Tensor) => tf.Tensor;

/**
 * A copy of x's values with no history on the gradient tape. Needed for the 0/1 window mask:
 * comparison and logical ops have no gradients, and tfjs fails on them even behind a zero
 * gradient as long as they sit on a path from the weights to the loss.
 */
function detached(x: tf.Tensor): tf.Tensor {
  return tf.tensor(x.dataSync(), x.shape, x.dtype);
}

/** Per-token inputs of one row, each of shape [T] except `segments` ([S, T] membership, 0/1). */
export interface LossInputs {
  logprobs: tf.Tensor1D;
  /** Old (sampler or recomputed) log-probs; any value where `hasOld` is 0. */
  old: tf.Tensor1D;
  hasOld: tf.Tensor1D;
  mask: tf.Tensor1D;
  weights: tf.Tensor1D;
  advantages: tf.Tensor1D;
  segments: tf.Tensor2D;
  /** §10.5 truncated importance sampling factor per token (1 when off). */
  tisWeight: tf.Tensor1D;
}

export interface LossOutputs {
  loss: tf.Scalar;
  /** Share of trainable tokens whose ratio lies outside [1−ε, 1+ε_h]. */
  fracClipped: tf.Scalar;
}

/** §10.3: the importance ratio at the configured level; δ is `ℓ − ℓ°` per token. */
function importanceRatio(delta: tf.Tensor1D, inp: LossInputs, cfg: ObjectiveConfig): tf.Tensor1D {
  const tokenRatio = tf.exp(delta);
  if (cfg.importanceSamplingLevel === 'token') return tokenRatio;
  const sums = tf.matMul(inp.segments, tf.reshape(tf.mul(delta, inp.mask), [-1, 1]));
  const counts = tf.matMul(inp.segments, tf.reshape(inp.mask, [-1, 1]));
  const segMean = tf.div(sums, tf.maximum(counts, 1));
  const seqDelta = tf.reshape(tf.matMul(inp.segments, segMean, true, false), [-1]) as tf.Tensor1D;
  if (cfg.importanceSamplingLevel === 'sequence') return tf.exp(seqDelta);
  if (cfg.importanceSamplingLevel === 'average') return tf.div(tf.add(tokenRatio, tf.exp(seqDelta)), 2) as tf.Tensor1D;
  return tf.exp(tf.div(tf.add(delta, seqDelta), 2)) as tf.Tensor1D;
}

/** §10.3–10.6 for one row: `Σ_t L_t·w_t·m_t / (Σ_t m_t + 1e-6)`. */
export function rlLoss(inp: LossInputs, cfg: ObjectiveConfig): LossOutputs {
  const lo = 1 - cfg.epsilon;
  const hi = 1 + cfg.epsilonHigh;
  // §10.3: a missing old log-prob is taken as ℓ itself (ratio 1, gradient kept).
  const oldEff = tf.add(tf.mul(inp.hasOld, inp.old), tf.mul(tf.sub(1, inp.hasOld), stopGradient(inp.logprobs)));
  const delta = tf.sub(inp.logprobs, oldEff) as tf.Tensor1D;
  let ratio: tf.Tensor = importanceRatio(delta, inp, cfg);
  if (cfg.maxImportanceSamplingWeight !== null) ratio = tf.minimum(ratio, cfg.maxImportanceSamplingWeight);
  const fixedRatio = detached(ratio);
  const outside = tf.cast(tf.logicalOr(tf.lessEqual(fixedRatio, lo), tf.greaterEqual(fixedRatio, hi)), 'float32');
  if (cfg.maskProbRatio) ratio = tf.mul(ratio, tf.sub(1, outside));
  let adv: tf.Tensor = inp.advantages;
  if (cfg.kimiK2Tau !== null) adv = tf.sub(adv, tf.mul(cfg.kimiK2Tau, stopGradient(delta)));
  const clipped = tf.clipByValue(ratio, lo, hi);
  const perToken = cfg.ppo
    ? tf.neg(tf.minimum(tf.mul(ratio, adv), tf.mul(clipped, adv)))
    : tf.neg(tf.mul(tf.mul(stopGradient(clipped), adv), inp.logprobs));
  const weighted = tf.mul(tf.mul(tf.mul(perToken, inp.tisWeight), inp.weights), inp.mask);
  const denom = tf.add(tf.sum(inp.mask), 1e-6);
  return {
    loss: tf.div(tf.sum(weighted), denom) as tf.Scalar,
    fracClipped: tf.div(tf.sum(tf.mul(outside, inp.mask)), denom) as tf.Scalar,
  };
}
