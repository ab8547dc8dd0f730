/**
 * The aggregate metrics `POST /v1/preview/models/{id}/log` computes (docs/spec/training.md §7), pure.
 * Groups and trajectories arrive schema-validated; unknown keys are ignored here.
 */

interface GroupLike {
  trajectories?: Array<{ reward?: unknown; metrics?: unknown; auto_metrics?: unknown }>;
  exceptions?: unknown[];
  metrics?: unknown;
}

/** Booleans count as 0/1; anything else that is not a finite number is skipped. */
function metricValue(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

class Means {
  readonly #sums = new Map<string, { sum: number; n: number }>();

  add(key: string, value: number): void {
    const entry = this.#sums.get(key) ?? { sum: 0, n: 0 };
    entry.sum += value;
    entry.n += 1;
    this.#sums.set(key, entry);
  }

  addAll(source: unknown, prefix = ''): void {
    if (source === null || typeof source !== 'object' || Array.isArray(source)) return;
    for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
      const value = metricValue(raw);
      if (value !== null) this.add(prefix + key, value);
    }
  }

  into(out: Record<string, number>): void {
    for (const [key, { sum, n }] of this.#sums) out[key] = sum / n;
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Population standard deviation. */
export function populationStd(xs: number[]): number {
  const mu = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - mu) ** 2)));
}

/** The §7 metrics of one request, keys prefixed `"<split>/"`; NaN values are dropped. */
export function computeLogMetrics(split: string, groups: GroupLike[]): Record<string, number> {
  const custom = new Means();
  const groupMetrics = new Means();
  const rewards: number[] = [];
  const stds: number[] = [];
  let exceptions = 0;
  let trainable = 0;
  for (const group of groups) {
    const trajectories = group.trajectories ?? [];
    exceptions += group.exceptions?.length ?? 0;
    const groupRewards = trajectories.map((t) => Number(t.reward));
    rewards.push(...groupRewards);
    if (groupRewards.length >= 2) stds.push(populationStd(groupRewards));
    if (groupRewards.some((r) => r !== groupRewards[0])) trainable += 1;
    for (const t of trajectories) {
      custom.addAll(t.metrics);
      custom.addAll(t.auto_metrics);
    }
    if (trajectories.length >= 1) groupMetrics.addAll(group.metrics, 'group_metric_');
  }
  const out: Record<string, number> = {};
  custom.into(out);
  groupMetrics.into(out);
  // Built-in names win over colliding custom ones (§7), so they are written last.
  const total = rewards.length + exceptions;
  if (rewards.length > 0) out.reward = mean(rewards);
  if (total > 0) out.exception_rate = exceptions / total;
  out.reward_std_dev = stds.length === 0 ? 0 : mean(stds);
  if (groups.length > 0) {
    out['data/step_num_trajectories'] = total;
    out['data/step_num_groups_submitted'] = groups.length;
    out['data/step_num_groups_trainable'] = trainable;
  }
  const prefixed: Record<string, number> = {};
  for (const [key, value] of Object.entries(out)) if (!Number.isNaN(value)) prefixed[`${split}/${key}`] = value;
  return prefixed;
}
