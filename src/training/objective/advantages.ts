/**
 * Group-relative advantages and per-token weights (docs/spec/training.md §10.1, §10.2). Pure arithmetic on
 * plain arrays, so the numbers are unit-testable without tfjs.
 */

/** §10.1: `A_i = r_i − μ`, divided by `σ + 1e-6` (population std) when `scaleRewards`. */
export function groupAdvantages(rewards: readonly number[], scaleRewards: boolean): number[] {
  if (rewards.length === 0) return [];
  // Equal rewards give exactly 0 (the float mean of [0.7, 0.7, 0.7] is not exactly 0.7): the group is dropped.
  if (rewards.every((r) => r === rewards[0])) return rewards.map(() => 0);
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  const centred = rewards.map((r) => r - mean);
  if (!scaleRewards) return centred;
  const std = Math.sqrt(centred.reduce((a, c) => a + c * c, 0) / rewards.length);
  return centred.map((a) => a / (std + 1e-6));
}

/** §10.2: `b > 0` shrinks negative advantages by `(1−b)`, `b < 0` positive ones by `(1+b)`. */
export function balanceAdvantage(advantage: number, balance: number): number {
  if (balance > 0 && advantage < 0) return advantage * (1 - balance);
  if (balance < 0 && advantage > 0) return advantage * (1 + balance);
  return advantage;
}

/** One trajectory's share of the job: its advantage and trainable token count (over all histories). */
export interface TrajectoryTokens {
  advantage: number;
  numTrainable: number;
}

export interface TokenScaling {
  /** Per trajectory: the weight `w_t` of each of its trainable tokens (mean 1 over all trainable tokens). */
  weights: number[];
  /** Per trajectory: its advantage after balance and normalisation by `mean_t(|A_t|·w_t)`. */
  advantages: number[];
}

/**
 * §10.2 over all trainable tokens of a job: `w = 1/(N_i + 1e-6)` rescaled to mean 1, advantage
 * balance, then `A ← A / mean_t(|A_t|·w_t)`. Weights and advantages are constant per trajectory,
 * so the token means are count-weighted means over trajectories.
 */
export function scaleTokens(trajectories: readonly TrajectoryTokens[], balance: number): TokenScaling {
  const total = trajectories.reduce((n, t) => n + t.numTrainable, 0);
  if (total === 0) return { weights: trajectories.map(() => 0), advantages: trajectories.map(() => 0) };
  const raw = trajectories.map((t) => 1 / (t.numTrainable + 1e-6));
  const rawMean = trajectories.reduce((s, t, i) => s + raw[i]! * t.numTrainable, 0) / total;
  const weights = raw.map((w) => w / rawMean);
  const balanced = trajectories.map((t) => balanceAdvantage(t.advantage, balance));
  const meanAbs =
    trajectories.reduce((s, t, i) => s + Math.abs(balanced[i]!) * weights[i]! * t.numTrainable, 0) / total;
  // All advantages balanced away (e.g. b = 1 with only negative ones): nothing to normalise.
  const advantages = meanAbs > 0 ? balanced.map((a) => a / meanAbs) : balanced;
  return { weights, advantages };
}

export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
