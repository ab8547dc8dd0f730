/**
 * Curves of a training model: every metric logged through `/log` (docs/spec/training.md §4.5, keys
 * `<split>/<name>`) or stored on a checkpoint (the job's `train/…` averages), one curve per metric name
 * with one series per split, by step.
 */

export interface MetricSource {
  step: number;
  metrics: Record<string, number>;
}

export interface MetricCurve {
  /** The metric's name without its split (`reward`, `exception_rate`, `data/step_num_trajectories`). */
  name: string;
  /** Splits: `train`, `val`, then the others by name. */
  splits: string[];
  /** One point per step, ascending: `{step, <split>: value}`. */
  points: Record<string, number>[];
}

/** `val/reward` → [`val`, `reward`]; a key with no `/` has no split and is left out. */
function splitKey(key: string): [string, string] | null {
  const i = key.indexOf('/');
  return i <= 0 || i === key.length - 1 ? null : [key.slice(0, i), key.slice(i + 1)];
}

/**
 * Checkpoint metrics first, then the history in the order it was logged, so a later log of a step
 * overwrites an earlier one, as the checkpoint merge does (§4.5 step 4). `reward` comes first, `data/…` last.
 */
export function metricCurves(checkpoints: MetricSource[], history: MetricSource[]): MetricCurve[] {
  const byName = new Map<string, { splits: string[]; steps: Map<number, Record<string, number>> }>();
  for (const source of [...checkpoints, ...history]) {
    for (const [key, value] of Object.entries(source.metrics)) {
      const parts = splitKey(key);
      if (!parts || typeof value !== 'number' || !Number.isFinite(value)) continue;
      const [split, name] = parts;
      let curve = byName.get(name);
      if (!curve) byName.set(name, (curve = { splits: [], steps: new Map() }));
      if (!curve.splits.includes(split)) curve.splits.push(split);
      let point = curve.steps.get(source.step);
      if (!point) curve.steps.set(source.step, (point = { step: source.step }));
      point[split] = value;
    }
  }
  // reward, then the task's own metrics, then the bookkeeping ones (`data/step_num_trajectories` …)
  const rank = (n: string) => (n === 'reward' ? 0 : n.includes('/') ? 2 : 1);
  const splitRank = (s: string) => (s === 'train' ? 0 : s === 'val' ? 1 : 2);
  return [...byName.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([name, c]) => ({
      name,
      splits: [...c.splits].sort((a, b) => splitRank(a) - splitRank(b) || a.localeCompare(b)),
      points: [...c.steps.values()].sort((a, b) => a.step! - b.step!),
    }));
}

/**
 * Where a step's rollouts are: the calls a rollout loop logged inside `weave.attributes({"step": N})`,
 * the attribute RL rollout tracers put the training step in (docs/web-ui.md, the Training row). `wb_run_step` is not
 * used: it is a W&B run's own history counter, not the training step, and Heddle links no W&B run to a
 * model (`run_id` is null, docs/spec/training.md §4.1).
 */
export const ROLLOUT_STEP_FIELD = 'attributes.step';

/** The traces page's search (web/src/lib/query.ts `TracesSearch`) for the rollouts of `step`. */
export function rolloutsSearch(step: number): { q: string } {
  return { q: `${ROLLOUT_STEP_FIELD} = ${step}` };
}

/** A step as the curves hold it: a non-negative integer, else null. */
export function stepOf(x: unknown): number | null {
  const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : null;
}
