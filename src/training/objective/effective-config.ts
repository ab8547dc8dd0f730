/**
 * The effective RL config of a job as JSON (snake_case wire names), shown on GET training job
 * (docs/spec/training.md §11 item 30): every §5.8 field with its default applied, the resulting ratio clip
 * window, and the learning rate the built-in policy actually uses.
 */
import { resolveObjectiveConfig } from './config.js';

/**
 * Keys that are accepted (§5.8) but have no effect in the built-in trainer. The Python worker
 * (worker/heddle_worker/objective.py) applies them: `trainer` "worker:<id>" reports none.
 */
const NOT_APPLIED = ['kl_penalty_coef'] as const;

export function effectiveTrainingConfig(
  raw: Record<string, unknown> | null,
  trainer: string | null = null,
): Record<string, unknown> {
  const c = resolveObjectiveConfig(raw);
  const byWorker = trainer?.startsWith('worker:') ?? false;
  const notApplied = byWorker ? [] : NOT_APPLIED.filter((key) => raw != null && raw[key] != null && raw[key] !== 0);
  return {
    learning_rate: c.learningRate,
    policy_learning_rate: c.policyLearningRate,
    scale_rewards: c.scaleRewards,
    advantage_balance: c.advantageBalance,
    ppo: c.ppo,
    loss_fn: c.ppo ? 'ppo' : 'cispo',
    epsilon: c.epsilon,
    epsilon_high: c.epsilonHigh,
    // §10.5: the ratio clip window [1−ε, 1+ε_h]; [0.8, 1.2] for PPO defaults, [0, 5] for CISPO.
    ratio_clip_window: [1 - c.epsilon, 1 + c.epsilonHigh],
    importance_sampling_level: c.importanceSamplingLevel,
    max_negative_advantage_importance_sampling_weight: c.maxImportanceSamplingWeight,
    mask_prob_ratio: c.maskProbRatio,
    kimi_k2_tau: c.kimiK2Tau,
    precalculate_logprobs: c.precalculateLogprobs,
    allow_training_without_logprobs: c.allowTrainingWithoutLogprobs,
    normalize_advantages: c.normalizeAdvantages,
    truncated_importance_sampling: c.truncatedImportanceSampling,
    kl_penalty_coef: c.klPenaltyCoef,
    not_applied: notApplied,
  };
}
