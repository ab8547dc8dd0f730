/**
 * A loaded policy: the weights as tfjs variables, the optimizer state, and the two computations the
 * trainer and the sampler need (per-token log-probs of a row, next-token log-probs of a prompt).
 */
import { AdamW } from './adamw.js';
import type { PolicyState } from './checkpoint.js';
import {
  type KvCache,
  type Weights,
  attentionBias,
  disposeKvCache,
  emptyKvCache,
  forward,
  toVariables,
} from './model.js';
import { tf } from './tf-backend.js';
import { type PolicyConfig, weightSpecs } from './weights.js';

/** A packed row as the model reads it (see build-rows.ts). */
export interface RowTokens {
  ids: readonly number[];
  positions: readonly number[];
  segments: readonly number[];
}

export interface TokenLogprobs {
  /** [T−1]: log-prob of token t+1 given the tokens up to t (in its segment). */
  logprobs: tf.Tensor1D;
  /** [T−1]: entropy of the predicted distribution at each position. */
  entropy: tf.Tensor1D;
}

export class TfPolicy {
  readonly optimizer: AdamW;

  private constructor(
    readonly config: PolicyConfig,
    readonly weights: Weights,
    optimizer: AdamW | null,
  ) {
    this.optimizer = optimizer ?? AdamW.fresh(this.variables());
  }

  static load(state: PolicyState): TfPolicy {
    const weights = toVariables(state.config, state.weights);
    const policy = new TfPolicy(state.config, weights, null);
    if (state.optimizer) {
      const o = state.optimizer;
      policy.optimizer.step = o.step;
      tf.tidy(() => {
        policy.optimizer.m.forEach((t, i) => t.assign(tf.tensor(o.m[i]!, t.shape)));
        policy.optimizer.v.forEach((t, i) => t.assign(tf.tensor(o.v[i]!, t.shape)));
      });
    }
    return policy;
  }

  variables(): tf.Variable[] {
    return [...this.weights.values()];
  }

  toState(): PolicyState {
    const read = (ts: tf.Variable[]) => ts.map((t) => t.dataSync() as Float32Array).map((a) => new Float32Array(a));
    const o = this.optimizer;
    return {
      config: this.config,
      weights: read(this.variables()),
      optimizer: { step: o.step, m: read(o.m), v: read(o.v) },
    };
  }

  /** Log-probs and entropies of every next token of a row (no tidy: call inside one). */
  rowLogprobs(row: RowTokens): TokenLogprobs {
    const len = row.ids.length;
    const logits = forward(this.config, this.weights, {
      ids: tf.tensor2d([...row.ids], [1, len], 'int32'),
      positions: tf.tensor2d([...row.positions], [1, len], 'int32'),
      bias: attentionBias([row.segments]),
    });
    const logp = tf.logSoftmax(
      tf.reshape(tf.slice(logits, [0, 0, 0], [1, len - 1, -1]), [len - 1, this.config.vocabSize]),
    );
    const targets = tf.oneHot(tf.tensor1d(row.ids.slice(1), 'int32'), this.config.vocabSize);
    const logprobs = tf.sum(tf.mul(logp, targets), -1) as tf.Tensor1D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)) as tf.Tensor1D;
    return { logprobs, entropy };
  }

  /**
   * Runs the prompt once and fills `cache` with its keys and values for every row of the cache
   * (all rows continue the same prompt); returns the next-token log-probs after the prompt.
   */
  prefill(prompt: readonly number[], cache: KvCache): Float32Array {
    return tf.tidy(() => {
      const len = prompt.length;
      const single = emptyKvCache(this.config, 1);
      const logits = forward(this.config, this.weights, {
        ids: tf.tensor2d([[...prompt]], [1, len], 'int32'),
        positions: tf.tensor2d([Array.from({ length: len }, (_, i) => i)], [1, len], 'int32'),
        bias: attentionBias([new Array<number>(len).fill(0)]),
        cache: single,
      });
      for (const kind of ['k', 'v'] as const) {
        cache[kind].forEach((rows, l) =>
          rows.forEach((_, b) => {
            rows[b] = tf.keep(tf.clone(single[kind][l]![0]!));
          }),
        );
      }
      disposeKvCache(single);
      const last = tf.slice(logits, [0, len - 1, 0], [1, 1, -1]);
      return tf.logSoftmax(tf.reshape(last, [1, this.config.vocabSize])).dataSync() as Float32Array;
    });
  }

  /** Feeds one token per cached row at `position`; returns each row's next-token log-probs. */
  decode(ids: readonly number[], position: number, cache: KvCache): Float32Array[] {
    return tf.tidy(() => {
      const n = ids.length;
      const logits = forward(this.config, this.weights, {
        ids: tf.tensor2d(
          ids.map((id) => [id]),
          [n, 1],
          'int32',
        ),
        positions: tf.tensor2d(
          ids.map(() => [position]),
          [n, 1],
          'int32',
        ),
        bias: null,
        cache,
      });
      const flat = tf.logSoftmax(tf.reshape(logits, [n, this.config.vocabSize])).dataSync() as Float32Array;
      return ids.map((_, b) => flat.slice(b * this.config.vocabSize, (b + 1) * this.config.vocabSize));
    });
  }

  dispose(): void {
    for (const v of this.variables()) v.dispose();
    this.optimizer.dispose();
  }
}

export function parameterCount(config: PolicyConfig): number {
  return weightSpecs(config).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
}
