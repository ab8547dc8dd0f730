/**
 * The built-in policy: a small pre-LayerNorm decoder-only transformer over byte tokens (~120k
 * weights), written directly with tfjs ops. Embeddings are one-hot × matrix because WASM has no
 * gradient kernel for `gather`; the output head is tied to the token embedding.
 */
import { matMul2d } from './fast-matmul.js';
import { tf } from './tf-backend.js';
import { type PolicyConfig, weightSpecs } from './weights.js';

export type Weights = Map<string, tf.Variable>;

export function toVariables(c: PolicyConfig, values: readonly Float32Array[]): Weights {
  const map: Weights = new Map();
  // tidy disposes the temporary tensor; the variable (not tracked by tidy) keeps its own data.
  weightSpecs(c).forEach((s, i) =>
    map.set(
      s.name,
      tf.tidy(() => tf.variable(tf.tensor(values[i]!, s.shape), true)),
    ),
  );
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
  const y = matMul2d(tf.reshape(x, [-1, shape[shape.length - 1]!]) as tf.Tensor2D, w as tf.Tensor2D);
  const out = tf.reshape(y, [...shape.slice(0, -1), w.shape[1] as number]);
  return b ? tf.add(out, b) : out;
}

/** One head of one row: `softmax(q·kᵀ/√d + bias)·v` with 2-D products only (see fast-matmul.ts). */
function head(q: tf.Tensor2D, keys: tf.Tensor2D, values: tf.Tensor2D, bias: tf.Tensor2D | null): tf.Tensor2D {
  const scores = tf.mul(matMul2d(q, tf.transpose(keys)), 1 / Math.sqrt(q.shape[1]));
  return matMul2d(tf.softmax(bias ? tf.add(scores, bias) : scores) as tf.Tensor2D, values);
}

/**
 * Keys and values of the tokens seen so far, per layer and row ([len, dModel]), for incremental
 * decoding: a new token then attends to them without recomputing the prefix. Its tensors are
 * kept out of tidy scopes; disposeKvCache frees them.
 */
export interface KvCache {
  k: (tf.Tensor2D | null)[][];
  v: (tf.Tensor2D | null)[][];
}

export function emptyKvCache(c: PolicyConfig, rows: number): KvCache {
  const empty = () => Array.from({ length: c.nLayers }, () => new Array<tf.Tensor2D | null>(rows).fill(null));
  return { k: empty(), v: empty() };
}

export function disposeKvCache(cache: KvCache): void {
  for (const t of [...cache.k.flat(), ...cache.v.flat()]) t?.dispose();
}

/** Appends this step's keys or values to a row's cache entry and returns the full set. */
function extend(store: (tf.Tensor2D | null)[], row: number, fresh: tf.Tensor2D): tf.Tensor2D {
  const old = store[row];
  const all = old ? (tf.concat([old, fresh], 0) as tf.Tensor2D) : fresh;
  store[row] = tf.keep(all);
  old?.dispose();
  return all;
}

/** Causal multi-head self-attention, heads concatenated, then the output projection. */
function attention(
  c: PolicyConfig,
  w: Weights,
  l: number,
  h: tf.Tensor,
  bias: tf.Tensor | null,
  cache?: KvCache,
): tf.Tensor {
  const [batch, len] = h.shape as [number, number, number];
  const d = c.dModel;
  const dh = d / c.nHeads;
  const qkv = linear(h, w.get(`l${l}.qkv`)!);
  const rows: tf.Tensor[] = [];
  for (let b = 0; b < batch; b++) {
    const x = tf.reshape(tf.slice(qkv, [b, 0, 0], [1, len, 3 * d]), [len, 3 * d]) as tf.Tensor2D;
    let keys = tf.slice(x, [0, d], [len, d]);
    let values = tf.slice(x, [0, 2 * d], [len, d]);
    if (cache) {
      keys = extend(cache.k[l]!, b, keys);
      values = extend(cache.v[l]!, b, values);
    }
    const rowBias = bias
      ? (tf.reshape(tf.slice(bias, [b, 0, 0, 0], [1, 1, len, len]), [len, len]) as tf.Tensor2D)
      : null;
    const heads = Array.from({ length: c.nHeads }, (_, k) =>
      head(
        tf.slice(x, [0, k * dh], [len, dh]),
        tf.slice(keys, [0, k * dh], [-1, dh]),
        tf.slice(values, [0, k * dh], [-1, dh]),
        rowBias,
      ),
    );
    rows.push(tf.concat(heads, 1));
  }
  return linear(tf.stack(rows), w.get(`l${l}.proj`)!);
}

/**
 * Fixed sinusoidal position encodings (no weights): a learned table would need a one-hot × matrix
 * product per token (no gather gradient on WASM), which cost more than the rest of the embedding.
 * Scaled to the token embeddings' initial size so neither drowns the other after the first LayerNorm.
 */
const POSITION_SCALE = 0.02;

function positionEncoding(positions: tf.Tensor2D, d: number): tf.Tensor2D {
  const pos = positions.dataSync();
  const out = new Float32Array(pos.length * d);
  for (let t = 0; t < pos.length; t++) {
    for (let i = 0; i < d / 2; i++) {
      const angle = pos[t]! / 10000 ** ((2 * i) / d);
      out[t * d + 2 * i] = POSITION_SCALE * Math.sin(angle);
      out[t * d + 2 * i + 1] = POSITION_SCALE * Math.cos(angle);
    }
  }
  return tf.tensor2d(out, [pos.length, d]);
}

/** Inputs of one forward pass over `batch` rows of `len` tokens. */
export interface ForwardInput {
  ids: tf.Tensor2D;
  positions: tf.Tensor2D;
  /** Additive attention bias [batch, 1, len, len]: 0 where attention is allowed, −1e9 elsewhere; null = attend to everything (one new token after a cache). */
  bias: tf.Tensor4D | null;
  /** Read and extended in place when given (incremental decoding). */
  cache?: KvCache;
}

/** Logits [batch, len, vocab]: position p predicts token p + 1. */
export function forward(c: PolicyConfig, w: Weights, input: ForwardInput): tf.Tensor3D {
  const [batch, len] = input.ids.shape;
  const tokens = matMul2d(
    tf.reshape(tf.oneHot(input.ids, c.vocabSize), [-1, c.vocabSize]) as tf.Tensor2D,
    w.get('tok_emb')! as tf.Tensor2D,
  );
  const pos = positionEncoding(input.positions, c.dModel);
  let x: tf.Tensor = tf.reshape(tf.add(tokens, pos), [batch, len, c.dModel]);
  for (let l = 0; l < c.nLayers; l++) {
    x = tf.add(
      x,
      attention(c, w, l, layerNorm(x, w.get(`l${l}.ln1.g`)!, w.get(`l${l}.ln1.b`)!), input.bias, input.cache),
    );
    const h = layerNorm(x, w.get(`l${l}.ln2.g`)!, w.get(`l${l}.ln2.b`)!);
    const ff = linear(
      tf.relu(linear(h, w.get(`l${l}.ff1`)!, w.get(`l${l}.ff1.b`)!)),
      w.get(`l${l}.ff2`)!,
      w.get(`l${l}.ff2.b`)!,
    );
    x = tf.add(x, ff);
  }
  const out = layerNorm(x, w.get('ln_f.g')!, w.get('ln_f.b')!);
  const unembed = tf.transpose(w.get('tok_emb')!) as tf.Tensor2D;
  return tf.reshape(matMul2d(tf.reshape(out, [-1, c.dModel]) as tf.Tensor2D, unembed), [batch, len, c.vocabSize]);
}

/** Causal attention restricted to each token's own segment; segment −1 (padding) sees only itself. */
export function attentionBias(segments: readonly (readonly number[])[]): tf.Tensor4D {
  const batch = segments.length;
  const len = segments[0]?.length ?? 0;
  const data = new Float32Array(batch * len * len).fill(-1e9);
  segments.forEach((seg, b) => {
    for (let i = 0; i < len; i++) {
      for (let j = 0; j <= i; j++) {
        if ((seg[i] === seg[j] && seg[i]! >= 0) || i === j) data[(b * len + i) * len + j] = 0;
      }
    }
  });
  return tf.tensor4d(data, [batch, 1, len, len]);
}
