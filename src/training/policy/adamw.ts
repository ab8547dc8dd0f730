/**
 * AdamW with global gradient-norm clipping (docs/spec/training.md §10.6: β₁ 0.9, β₂ 0.99, weight decay 0.1,
 * constant learning rate). The moments live in tfjs variables so they can be checkpointed.
 */
import { tf } from './tf-backend.js';

export interface AdamWOptions {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  weightDecay: number;
  /** Global L2 norm the gradients are scaled down to when above it. */
  maxGradNorm: number;
}

/**
 * Our choice: §10.6 clips at 0.1 for LoRA on a 14B model. The built-in policy's gradient norms
 * sit around 0.1–2 on normalised advantages; clipping at 1.0 only tames outlier rows. With Adam
 * the clip changes the relative weight of a row, not the step size.
 */
export const BUILTIN_MAX_GRAD_NORM = 1.0;

export function adamWDefaults(learningRate: number): AdamWOptions {
  return { learningRate, beta1: 0.9, beta2: 0.99, epsilon: 1e-8, weightDecay: 0.1, maxGradNorm: BUILTIN_MAX_GRAD_NORM };
}

export class AdamW {
  step: number;

  constructor(
    private readonly params: tf.Variable[],
    readonly m: tf.Variable[],
    readonly v: tf.Variable[],
    step: number,
  ) {
    this.step = step;
  }

  static fresh(params: tf.Variable[]): AdamW {
    const zeros = () => params.map((p) => tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
    return new AdamW(params, zeros(), zeros(), 0);
  }

  /** Clips, applies one update and returns the gradient norm before clipping. */
  apply(grads: tf.Tensor[], o: AdamWOptions): number {
    const norm = tf.tidy(() => tf.sqrt(tf.addN(grads.map((g) => tf.sum(tf.square(g))))).dataSync()[0]!);
    const scale = norm > o.maxGradNorm ? o.maxGradNorm / (norm + 1e-6) : 1;
    this.step += 1;
    const c1 = 1 - o.beta1 ** this.step;
    const c2 = 1 - o.beta2 ** this.step;
    tf.tidy(() => {
      this.params.forEach((p, i) => {
        const g = tf.mul(grads[i]!, scale);
        const m = tf.add(tf.mul(this.m[i]!, o.beta1), tf.mul(g, 1 - o.beta1));
        const v = tf.add(tf.mul(this.v[i]!, o.beta2), tf.mul(tf.square(g), 1 - o.beta2));
        const update = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), o.epsilon));
        // Decoupled weight decay (AdamW): shrink the weight itself, not the gradient.
        p.assign(tf.sub(tf.mul(p, 1 - o.learningRate * o.weightDecay), tf.mul(update, o.learningRate)));
        this.m[i]!.assign(m);
        this.v[i]!.assign(v);
      });
    });
    return norm;
  }

  dispose(): void {
    for (const t of [...this.m, ...this.v]) t.dispose();
  }
}
