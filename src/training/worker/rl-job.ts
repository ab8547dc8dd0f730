/**
 * One RL job on the built-in policy (docs/spec/training.md §6, §9, §10), run inside the trainer worker:
 * rows from the trajectory groups, `training_started`, then one AdamW step and one `gradient_step`
 * per row. A job with no rows is a no-op (§6.4): the parent checkpoint is returned unchanged.
 */
import { buildRows, type TrainingRow } from '../build-rows.js';
import { type ObjectiveConfig, resolveObjectiveConfig } from '../objective/config.js';
import { rlLoss } from '../objective/loss.js';
import { adamWDefaults } from '../policy/adamw.js';
import { encodeCheckpoint, initialPolicyState, loadPolicyState } from '../policy/checkpoint.js';
import { tf } from '../policy/tf-backend.js';
import { TfPolicy } from '../policy/tf-policy.js';
import type { TrainingJobInput, TrainingOutcome, TrainingProgress } from '../trainer-port.js';
import { averageMetrics, stepMetrics } from './step-metrics.js';

export type Emit = (progress: TrainingProgress) => Promise<void>;

/** Per-token constants of a row, shifted to the predicted positions 1..T−1. */
function rowConstants(row: TrainingRow, old: readonly number[], cfg: ObjectiveConfig) {
  const t = row.ids.length - 1;
  const shift = <T>(a: readonly T[]) => a.slice(1);
  const hasOld = shift(old).map((x) => (Number.isNaN(x) ? 0 : 1));
  const segCount = Math.max(...row.segments) + 1;
  const segments = new Float32Array(segCount * t);
  shift(row.segments).forEach((s, i) => {
    segments[s * t + i] = 1;
  });
  const tis = shift(row.oldLogprobs).map((orig, i) => {
    const c = cfg.truncatedImportanceSampling;
    const recomputed = old[i + 1]!;
    // §10.5: sg[min(exp(ℓ° − ℓ^orig), c)], 1 where either log-prob is unknown.
    return c === null || Number.isNaN(orig) || Number.isNaN(recomputed) ? 1 : Math.min(Math.exp(recomputed - orig), c);
  });
  return {
    old: tf.tensor1d(shift(old).map((x) => (Number.isNaN(x) ? 0 : x))),
    hasOld: tf.tensor1d(hasOld),
    mask: tf.tensor1d(shift(row.mask)),
    weights: tf.tensor1d(shift(row.weights)),
    advantages: tf.tensor1d(shift(row.advantages)),
    segments: tf.tensor2d(segments, [segCount, t]),
    tisWeight: tf.tensor1d(tis),
  };
}

/** §10.3 precalculate_logprobs: ℓ° recomputed with the starting weights on trainable tokens. */
function recomputeOld(policy: TfPolicy, row: TrainingRow): number[] {
  const lp = tf.tidy(() => policy.rowLogprobs(row).logprobs.dataSync() as Float32Array);
  return row.ids.map((_, i) => (i > 0 && row.mask[i] === 1 ? lp[i - 1]! : NaN));
}

function gradientStep(
  policy: TfPolicy,
  row: TrainingRow,
  old: readonly number[],
  cfg: ObjectiveConfig,
): Record<string, number> {
  const vars = policy.variables();
  const observed: tf.Tensor[] = [];
  const { value, grads } = tf.variableGrads(() => {
    const c = rowConstants(row, old, cfg);
    const { logprobs, entropy } = policy.rowLogprobs(row);
    const out = rlLoss({ ...c, logprobs }, cfg);
    observed.push(...[logprobs, entropy, out.fracClipped, c.old, c.hasOld, c.mask].map((x) => tf.keep(x)));
    return out.loss;
  }, vars);
  const gradNorm = policy.optimizer.apply(
    vars.map((v) => grads[v.name]!),
    adamWDefaults(cfg.policyLearningRate),
  );
  // the six tensors kept above, in that order
  const [logprobs, entropy, fracClipped, oldT, hasOld, mask] = observed.map((t) => t.dataSync() as Float32Array) as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const loss = value.dataSync()[0]!;
  tf.dispose([value, ...Object.values(grads), ...observed]);
  return stepMetrics({
    loss,
    gradNorm,
    logprobs,
    entropy,
    old: oldT,
    hasOld,
    mask,
    fracClipped: fracClipped[0]!,
    learningRate: cfg.policyLearningRate,
  });
}

/** Runs one RL job; `emit` is awaited before each next step (§6.2 ordering). */
export async function runRlJob(input: TrainingJobInput, emit: Emit): Promise<TrainingOutcome> {
  const cfg = resolveObjectiveConfig(input.experimentalConfig);
  const state = loadPolicyState(input.parentCheckpoint);
  const built = buildRows(input.trajectoryGroups, cfg, state.config.context, input.seed);
  await emit({
    type: 'training_started',
    data: {
      num_sequences: built.rows.length,
      num_trajectories: built.numTrajectories,
      num_groups_submitted: built.numGroupsSubmitted,
      num_groups_trainable: built.numGroupsTrainable,
      num_trainable_tokens: built.numTrainableTokens,
      sequence_length: state.config.context,
      parent_step: input.parentStep,
      policy_learning_rate: cfg.policyLearningRate,
    },
  });
  if (built.rows.length === 0) {
    const checkpoint = input.parentCheckpoint ?? encodeCheckpoint(initialPolicyState());
    return { checkpoint: new Uint8Array(checkpoint), metrics: {}, numGradientSteps: 0 };
  }
  const policy = TfPolicy.load(state);
  try {
    const olds = built.rows.map((row) => (cfg.precalculateLogprobs ? recomputeOld(policy, row) : row.oldLogprobs));
    const all: Record<string, number>[] = [];
    for (let i = 0; i < built.rows.length; i++) {
      const metrics = gradientStep(policy, built.rows[i]!, olds[i]!, cfg);
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
