/**
 * The numbers of one `gradient_step` event (docs/spec/training.md §6.2: only numeric values) and their job
 * averages. Every value is finite: ART averages the keys and JSON has no NaN.
 */

export interface StepObservation {
  loss: number;
  gradNorm: number;
  /** Per predicted position: current log-prob, entropy, old log-prob, has-old flag, trainable mask. */
  logprobs: Float32Array;
  entropy: Float32Array;
  old: Float32Array;
  hasOld: Float32Array;
  mask: Float32Array;
  fracClipped: number;
  learningRate: number;
}

/** Pearson correlation of current vs sampler token probabilities (tokens with an old log-prob). */
function probsCorrelation(o: StepObservation): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < o.mask.length; i++) {
    if (o.mask[i] === 1 && o.hasOld[i] === 1) {
      xs.push(Math.exp(o.logprobs[i]!));
      ys.push(Math.exp(o.old[i]!));
    }
  }
  if (xs.length === 0) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  });
  if (sxx === 0 || syy === 0) return xs.every((x, i) => Math.abs(x - ys[i]!) < 1e-6) ? 1 : 0;
  return sxy / Math.sqrt(sxx * syy);
}

export function stepMetrics(o: StepObservation): Record<string, number> {
  let tokens = 0;
  let entropy = 0;
  o.mask.forEach((m, i) => {
    tokens += m;
    entropy += m * o.entropy[i]!;
  });
  const finite = (x: number) => (Number.isFinite(x) ? x : 0);
  return {
    loss: finite(o.loss),
    // No KL term is applied (§10.5 KL is off by default and not supported here), so policy_loss = loss.
    policy_loss: finite(o.loss),
    grad_norm: finite(o.gradNorm),
    entropy: tokens > 0 ? entropy / tokens : 0,
    learning_rate: o.learningRate,
    num_trainable_tokens: tokens,
    probs_corr: finite(probsCorrelation(o)),
    frac_clipped: finite(o.fracClipped),
  };
}

/** Mean of every key over the steps (the job's `metrics`, §6.5). */
export function averageMetrics(steps: readonly Record<string, number>[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const s of steps) for (const [k, v] of Object.entries(s)) sums[k] = (sums[k] ?? 0) + v;
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / Math.max(steps.length, 1)]));
}
