import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decodeCheckpoint, encodeCheckpoint, initialPolicyState } from '../../../src/training/policy/checkpoint.js';
import { initBackend, tf } from '../../../src/training/policy/tf-backend.js';
import { TfPolicy, parameterCount } from '../../../src/training/policy/tf-policy.js';
import { DEFAULT_POLICY_CONFIG, type PolicyConfig, initialWeights } from '../../../src/training/policy/weights.js';

before(async () => {
  await initBackend();
});

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

test('step-0 policy: the same bytes every time; 50k–200k weights; codec round trip', () => {
  const a = encodeCheckpoint(initialPolicyState());
  const b = encodeCheckpoint(initialPolicyState());
  assert.equal(sha(a), sha(b));
  assert.equal(new TextDecoder().decode(a.subarray(0, 4)), 'HDLP');
  const n = parameterCount(DEFAULT_POLICY_CONFIG);
  assert.ok(n >= 50_000 && n <= 200_000, `${n} weights`);
  const decoded = decodeCheckpoint(a);
  assert.equal(decoded.optimizer, null);
  assert.deepEqual(decoded.config, DEFAULT_POLICY_CONFIG);
  assert.equal(sha(encodeCheckpoint(decoded)), sha(a));
  assert.throws(() => decodeCheckpoint(a.subarray(0, a.length - 4)), /length/);
  // A different seed gives different weights.
  assert.notDeepEqual(
    initialWeights(DEFAULT_POLICY_CONFIG, 1)[0]!.slice(0, 4),
    initialWeights(DEFAULT_POLICY_CONFIG, 2)[0]!.slice(0, 4),
  );
});

test('the checkpoint keeps the optimizer state across a load/save', () => {
  const policy = TfPolicy.load(initialPolicyState());
  try {
    const state = policy.toState();
    state.optimizer!.step = 7;
    state.optimizer!.m[0]![3] = 0.25;
    const back = decodeCheckpoint(encodeCheckpoint(state));
    assert.equal(back.optimizer!.step, 7);
    assert.equal(back.optimizer!.m[0]![3], 0.25);
  } finally {
    policy.dispose();
  }
});

test('gradient check of the transformer (tiny config): analytic vs finite differences', () => {
  const config: PolicyConfig = {
    vocabSize: DEFAULT_POLICY_CONFIG.vocabSize,
    dModel: 8,
    nHeads: 2,
    nLayers: 1,
    dFf: 16,
    context: 16,
  };
  const weights = initialWeights(config, 5).map((w) => w.map((x) => x * 10));
  const policy = TfPolicy.load({ config, weights, optimizer: null });
  try {
    const row = {
      ids: [256, 72, 105, 33, 261, 256, 65],
      positions: [0, 1, 2, 3, 4, 0, 1],
      segments: [0, 0, 0, 0, 0, 1, 1],
    };
    const f = () => tf.neg(tf.sum(policy.rowLogprobs(row).logprobs)) as tf.Scalar;
    const vars = policy.variables();
    const { grads } = tf.variableGrads(f, vars);
    let checked = 0;
    for (const name of ['tok_emb', 'l0.qkv', 'l0.proj', 'l0.ff1', 'l0.ln1.g']) {
      const v = policy.weights.get(name)!;
      const g = grads[v.name]!.dataSync();
      const base = v.dataSync().slice();
      // The few entries with the largest gradient: well above float32 noise.
      const order = Array.from(g.keys())
        .sort((a, b) => Math.abs(g[b]!) - Math.abs(g[a]!))
        .slice(0, 3);
      for (const k of order) {
        const at = (d: number) => {
          const copy = base.slice();
          copy[k] = copy[k]! + d;
          v.assign(tf.tensor(copy, v.shape));
          return tf.tidy(() => f().dataSync()[0]!);
        };
        const numeric = (at(1e-2) - at(-1e-2)) / 2e-2;
        v.assign(tf.tensor(base, v.shape));
        assert.ok(
          Math.abs(numeric - g[k]!) <= 2e-2 * Math.max(1, Math.abs(g[k]!)),
          `${name}[${k}]: ${g[k]} vs ${numeric}`,
        );
        checked++;
      }
    }
    assert.equal(checked, 15);
  } finally {
    policy.dispose();
  }
});

test('sampler log-probs (KV-cached decoding) equal the training forward pass on the same tokens', async () => {
  const { completeChat } = await import('../../../src/training/worker/sample.js');
  const { tokenizeHistory } = await import('../../../src/training/tokenize-trajectory.js');
  const policy = TfPolicy.load(initialPolicyState());
  try {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ];
    const body = completeChat(policy, { messages, n: 3, max_tokens: 12, logprobs: true, seed: 4 }) as {
      choices: unknown[];
    };
    for (const c of body.choices) {
      const h = tokenizeHistory([...messages, c], null, { allowTrainingWithoutLogprobs: false, maxTokens: 512 }, 't')!;
      const row = { ids: h.ids, positions: h.ids.map((_, i) => i), segments: h.ids.map(() => 0) };
      const current = tf.tidy(() => policy.rowLogprobs(row).logprobs.dataSync() as Float32Array);
      let compared = 0;
      h.mask.forEach((m, i) => {
        if (m !== 1) return;
        assert.ok(
          Math.abs(current[i - 1]! - h.oldLogprobs[i]!) < 1e-4,
          `token ${i}: ${current[i - 1]} vs sampler ${h.oldLogprobs[i]}`,
        );
        compared++;
      });
      assert.ok(compared >= 1, 'compared at least one token');
    }
  } finally {
    policy.dispose();
  }
});
