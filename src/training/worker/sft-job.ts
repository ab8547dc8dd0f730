/**
 * One SFT job on the built-in policy (docs/spec/training.md §4.9): cross-entropy on the assistant turns of
 * each `{messages, tools?}` example, one AdamW step per batch (`num_sequences` = number of batches).
 * Our choices: `batch_size` "auto"/null = 4; `learning_rate` null = 5e-6, scaled for the small
 * policy like RL rates (POLICY_LEARNING_RATE_SCALE); a list gives one rate per batch (the last
 * one repeats when the list is short).
 */
import { POLICY_LEARNING_RATE_SCALE } from '../objective/config.js';
import { type PlainMessage, renderMessage, renderPreamble, toPlainMessage } from '../policy/chat-render.js';
import { adamWDefaults } from '../policy/adamw.js';
import { encodeCheckpoint, loadPolicyState } from '../policy/checkpoint.js';
import { tf } from '../policy/tf-backend.js';
import { TfPolicy } from '../policy/tf-policy.js';
import { TrainingContentError, type TrainingJobInput, type TrainingOutcome } from '../trainer-port.js';
import type { Emit } from './rl-job.js';
import { averageMetrics } from './step-metrics.js';

interface Example {
  ids: number[];
  mask: number[];
}

const AUTO_BATCH_SIZE = 4;

function tokenizeExample(raw: unknown, index: number, context: number): Example {
  const r = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const ids = renderPreamble(r.tools);
  const mask = ids.map(() => 0);
  const messages: PlainMessage[] = (Array.isArray(r.messages) ? r.messages : []).map(toPlainMessage);
  for (const m of messages) {
    const tokens = renderMessage(m);
    ids.push(...tokens);
    // The role marker is context; the assistant's text, tool calls and end of turn are trained.
    mask.push(...tokens.map((_, i) => (m.role === 'assistant' && i > 0 ? 1 : 0)));
  }
  if (ids.length > context)
    throw new TrainingContentError(
      `SFT example ${index} has ${ids.length} tokens, more than the built-in policy's context window of ${context} tokens`,
    );
  return { ids, mask };
}

function learningRates(config: Record<string, unknown> | null | undefined, batches: number): number[] {
  const lr = config?.learning_rate;
  const list = Array.isArray(lr)
    ? lr.filter((x): x is number => typeof x === 'number')
    : typeof lr === 'number'
      ? [lr]
      : [5e-6];
  return Array.from({ length: batches }, (_, i) => list[Math.min(i, list.length - 1)] ?? 5e-6);
}

/** Sum of per-example mean cross-entropies of a batch, with its gradients. */
function batchGradients(policy: TfPolicy, batch: readonly Example[]) {
  const vars = policy.variables();
  const sums: tf.Tensor[] = vars.map((v) => tf.zerosLike(v));
  let loss = 0;
  let tokens = 0;
  for (const ex of batch) {
    const row = { ids: ex.ids, positions: ex.ids.map((_, i) => i), segments: ex.ids.map(() => 0) };
    const mask = ex.mask.slice(1);
    const count = mask.reduce((a, b) => a + b, 0);
    if (count === 0) continue;
    const { value, grads } = tf.variableGrads(() => {
      const lp = policy.rowLogprobs(row).logprobs;
      return tf.div(tf.neg(tf.sum(tf.mul(lp, tf.tensor1d(mask)))), count * batch.length) as tf.Scalar;
    }, vars);
    vars.forEach((v, i) => {
      const next = tf.add(sums[i]!, grads[v.name]!);
      sums[i]!.dispose();
      sums[i] = next;
    });
    loss += value.dataSync()[0]!;
    tokens += count;
    tf.dispose([value, ...Object.values(grads)]);
  }
  return { sums, loss, tokens };
}

export async function runSftJob(input: TrainingJobInput, emit: Emit): Promise<TrainingOutcome> {
  const state = loadPolicyState(input.parentCheckpoint);
  const examples = (input.sftExamples ?? []).map((e, i) => tokenizeExample(e, i, state.config.context));
  const size = input.sftConfig?.batch_size;
  const batchSize = typeof size === 'number' && size >= 1 ? Math.floor(size) : AUTO_BATCH_SIZE;
  const batches: Example[][] = [];
  for (let i = 0; i < examples.length; i += batchSize) batches.push(examples.slice(i, i + batchSize));
  const rates = learningRates(input.sftConfig, batches.length);
  await emit({
    type: 'training_started',
    data: {
      num_sequences: batches.length,
      num_examples: examples.length,
      batch_size: batchSize,
      sequence_length: state.config.context,
      parent_step: input.parentStep,
    },
  });
  const policy = TfPolicy.load(state);
  try {
    const all: Record<string, number>[] = [];
    for (let b = 0; b < batches.length; b++) {
      const { sums, loss, tokens } = batchGradients(policy, batches[b]!);
      const learningRate = rates[b]! * POLICY_LEARNING_RATE_SCALE;
      const gradNorm = policy.optimizer.apply(sums, adamWDefaults(learningRate));
      tf.dispose(sums);
      const metrics = { loss, grad_norm: gradNorm, learning_rate: learningRate, num_trainable_tokens: tokens };
      all.push(metrics);
      await emit({ type: 'gradient_step', data: metrics });
    }
    return {
      checkpoint: encodeCheckpoint(policy.toState()),
      metrics: averageMetrics(all),
      numGradientSteps: all.length,
    };
  } finally {
    policy.dispose();
  }
}
