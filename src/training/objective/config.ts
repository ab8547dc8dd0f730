/**
 * The experimental training config of an RL job with the defaults of docs/spec/training.md §5.8 applied.
 * Pure TypeScript: the service shows the effective config (effective-config.ts) and the trainer
 * applies it (§10). The body was validated by the service schema already; a value of the wrong
 * type here is treated like "absent" rather than failing a job.
 */

export type ImportanceSamplingLevel = 'token' | 'sequence' | 'average' | 'geometric_average';

/**
 * Our choice: §5.8's default `learning_rate` (5e-6) is sized for a LoRA adapter on a 14B model.
 * The built-in policy is a ~100k-parameter byte decoder trained from a random init, where such a
 * step size does not move the weights measurably; AdamW's step is roughly `lr` per weight, so the
 * requested rate is multiplied by this factor (5e-6 → 5e-3, a common Adam rate for tiny models).
 * Measured on a toy task (first byte a lowercase letter, 4 groups × 8 per job): ×400 moved the
 * mean reward 0.06 → 0.16 in 8 jobs, ×1000 to 0.28, ×5000 to 0.72.
 */
export const POLICY_LEARNING_RATE_SCALE = 1000;

export interface ObjectiveConfig {
  learningRate: number;
  /** learningRate × POLICY_LEARNING_RATE_SCALE: the AdamW rate the built-in policy uses. */
  policyLearningRate: number;
  scaleRewards: boolean;
  advantageBalance: number;
  ppo: boolean;
  epsilon: number;
  epsilonHigh: number;
  importanceSamplingLevel: ImportanceSamplingLevel;
  maxImportanceSamplingWeight: number | null;
  maskProbRatio: boolean;
  kimiK2Tau: number | null;
  precalculateLogprobs: boolean;
  allowTrainingWithoutLogprobs: boolean;
  normalizeAdvantages: boolean;
  truncatedImportanceSampling: number | null;
  klPenaltyCoef: number;
}

const LEVELS: readonly string[] = ['token', 'sequence', 'average', 'geometric_average'];

function num(raw: Record<string, unknown>, key: string): number | null {
  const v = raw[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function bool(raw: Record<string, unknown>, key: string): boolean | null {
  const v = raw[key];
  return typeof v === 'boolean' ? v : null;
}

/** `ppo: true|false` or the newer `loss_fn: "ppo"|"cispo"` (§5.8); `ppo` wins when both are sent. */
function resolvePpo(raw: Record<string, unknown>): boolean {
  const ppo = bool(raw, 'ppo');
  if (ppo !== null) return ppo;
  const lossFn = raw.loss_fn;
  if (typeof lossFn === 'string') return lossFn.toLowerCase() === 'ppo';
  return false;
}

/** Applies the §5.8 defaults to a raw `experimental_config` (null = all defaults). */
export function resolveObjectiveConfig(rawConfig: Record<string, unknown> | null): ObjectiveConfig {
  const raw = rawConfig ?? {};
  const ppo = resolvePpo(raw);
  const epsilon = num(raw, 'epsilon') ?? (ppo ? 0.2 : 1.0);
  const epsilonHigh = num(raw, 'epsilon_high') ?? (ppo ? epsilon : 4.0);
  const learningRate = num(raw, 'learning_rate') ?? 5e-6;
  const normalizeAdvantages = bool(raw, 'normalize_advantages') ?? true;
  const level = raw.importance_sampling_level;
  return {
    learningRate,
    policyLearningRate: learningRate * POLICY_LEARNING_RATE_SCALE,
    // §5.8: normalize_advantages=false forces scale_rewards off.
    scaleRewards: normalizeAdvantages ? (bool(raw, 'scale_rewards') ?? true) : false,
    advantageBalance: num(raw, 'advantage_balance') ?? 0,
    ppo,
    epsilon,
    epsilonHigh,
    importanceSamplingLevel:
      typeof level === 'string' && LEVELS.includes(level) ? (level as ImportanceSamplingLevel) : 'token',
    maxImportanceSamplingWeight: num(raw, 'max_negative_advantage_importance_sampling_weight'),
    maskProbRatio: bool(raw, 'mask_prob_ratio') ?? false,
    // §5.8 Our choice: partner_k2_tau is an alias; kimi_k2_tau wins when both are sent.
    kimiK2Tau: num(raw, 'kimi_k2_tau') ?? num(raw, 'partner_k2_tau'),
    precalculateLogprobs: bool(raw, 'precalculate_logprobs') ?? false,
    allowTrainingWithoutLogprobs: bool(raw, 'allow_training_without_logprobs') ?? false,
    normalizeAdvantages,
    truncatedImportanceSampling: num(raw, 'truncated_importance_sampling'),
    klPenaltyCoef: num(raw, 'kl_penalty_coef') ?? 0,
  };
}
