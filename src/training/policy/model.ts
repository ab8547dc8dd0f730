/**
 * The built-in policy: a small pre-LayerNorm decoder-only transformer over byte tokens (~150k
 * weights), written directly with tfjs ops. Embeddings are one-hot × matrix because WASM has no
 * gradient kernel for `gather`; the output head is tied to the token embedding.
 */
import { tf } from './tf-backend.js';
import { type PolicyConfig, weightSpecs } from './weights.js';

export type Weights = Map<string, tf.Variable>;

export function toVariables(c: PolicyConfig, values: readonly Float32Array[]): Weights {
  const map: Weights = new Map();
  weightSpecs(c).forEach((s, i) => map.set(s.name, tf.variable(tf.tensor(values[i], s.shape), true, undefined)));
  return map;
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), -1, true);
  return tf.add(tf.mul(tf.mul(centred, tf.rsqrt(tf.add(variance, 1e-5))), g), b);
}

function linear(x: tf.Tensor, w: tf.Tensor, b?: tf.Tensor): tf.Tensor {
  const shape = x.shape;
  const y = tf.matMul(tf.reshape(x, [-1, shape[shape.length - 1]]), w as tf.Tensor2D);
  const out = tf.reshape(y, [...shape.slice(0, -1), w.shape[1] as number]);
  return b ? tf.add(out, b) : out;
}

function attention(c: PolicyConfig, w: Weights, l: number, h: tf.Tensor, bias: tf.Tensor): tf.Tensor {
  const [batch, len] = h.shape;
  const dh = c.dModel / c.nHeads;
  const qkv = tf.reshape(linear(h, w.get(`l${l}.qkv`)!), [batch, len, 3, c.nHeads, dh]);
  const [q, k, v] = tf.unstack(tf.transpose(qkv, [2, 0, 3, 1, 4])) as tf.Tensor4D[];
  const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), bias);
  const mixed = tf.matMul(tf.softmax(scores), v);
  const merged = tf.reshape(tf.transpose(mixed, [0, 2, 1, 3]), [batch, len, c.dModel]);
  return linear(merged, w.get(`l${l}.proj`)!);
}

/** Inputs of one forward pass over `batch` rows of `len` tokens. */
export interface ForwardInput {
  ids: tf.Tensor2D;
  positions: tf.Tensor2D;
  /** Additive attention bias [batch, 1, len, len]: 0 where attention is allowed, −1e9 elsewhere. */
  bias: tf.Tensor4D;
}

/** Logits [batch, len, vocab]: position p predicts token p + 1. */
export function forward(c: PolicyConfig, w: Weights, input: ForwardInput): tf.Tensor3D {
  const [batch, len] = input.ids.shape;
  const tokens = tf.matMul(tf.reshape(tf.oneHot(input.ids, c.vocabSize), [-1, c.vocabSize]), w.get('tok_emb')! as tf.Tensor2D);
  const pos = tf.matMul(tf.reshape(tf.oneHot(input.positions, c.context), [-1, c.context]), w.get('pos_emb')! as tf.Tensor2D);
  let x: tf.Tensor = tf.reshape(tf.add(tokens, pos), [batch, len, c.dModel]);
  for (let l = 0; l < c.nLayers; l++) {
    x = tf.add(x, attention(c, w, l, layerNorm(x, w.get(`l${l}.ln1.g`)!, w.get(`l${l}.ln1.b`)!), input.bias));
    const h = layerNorm(x, w.get(`l${l}.ln2.g`)!, w.get(`l${l}.ln2.b`)!);
    const ff = linear(tf.relu(linear(h, w.get(`l${l}.ff1`)!, w.get(`l${l}.ff1.b`)!)), w.get(`l${l}.ff2`)!, w.get(`l${l}.ff2.b`)!);
    x = tf.add(x, ff);
  }
  const out = layerNorm(x, w.get('ln_f.g')!, w.get('ln_f.b')!);
  return tf.reshape(tf.matMul(tf.reshape(out, [-1, c.dModel]), w.get('tok_emb')! as tf.Tensor2D, false, true), [batch, len, c.vocabSize]);
}

/** Causal attention restricted to each token's own segment; segment −1 (padding) sees only itself. */
export function attentionBias(segments: readonly (readonly number[])[]): tf.Tensor4D {
  const batch = segments.length;
  const len = segments[0]?.length ?? 0;
  const data = new Float32Array(batch * len * len).fill(-1e9);
  segments.forEach((seg, b) => {
    for (let i = 0; i < len; i++) {
      for (let j = 0; j <= i; j++) {
        if ((seg[i] === seg[j] && seg[i] >= 0) || i === j) data[(b * len + i) * len + j] = 0;
      }
    }
  });
  return tf.tensor4d(data, [batch, 1, len, len]);
}
