/**
 * Aggregates over one metric in one group (a time bucket, or a bucket × model), as `/calls/stats`
 * and `/threads/stream_query` report them (docs/spec/calls.md §4.9, §4.12). Null values are skipped by
 * every aggregate, as SQL aggregates skip NULL.
 */

export type Aggregation = 'sum' | 'avg' | 'min' | 'max' | 'count' | 'count_true' | 'count_false';

export const AGGREGATIONS: readonly Aggregation[] = ['sum', 'avg', 'min', 'max', 'count', 'count_true', 'count_false'];

/**
 * The `p`-th percentile (0–100) of ascending `sorted` values by linear interpolation between the
 * closest ranks; null for no values.
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  // callers keep p within 0–100 (request schema, call-stats-service), so lo and hi are in range
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Column suffix of a percentile: `50`, `99.9` (JSON cannot tell 50 from 50.0, so integral values never carry a fraction). */
export function percentileLabel(p: number): string {
  return String(p);
}

/** Running aggregate of one metric; keeps the values only when percentiles need them. */
export class MetricAccumulator {
  #sum = 0;
  #count = 0;
  #nonZero = 0;
  #min: number | null = null;
  #max: number | null = null;
  readonly #values: number[] | null;
  #sorted = false;

  constructor(keepValues: boolean) {
    this.#values = keepValues ? [] : null;
  }

  add(value: number | null): void {
    if (value === null) return;
    this.#sum += value;
    this.#count += 1;
    if (value !== 0) this.#nonZero += 1;
    if (this.#min === null || value < this.#min) this.#min = value;
    if (this.#max === null || value > this.#max) this.#max = value;
    if (this.#values) {
      this.#values.push(value);
      this.#sorted = false;
    }
  }

  /**
   * The aggregate; sums, averages and counts of nothing read 0, min and max of nothing read null
   * (docs/spec/calls.md §4.9 "Empty buckets"). `count_true` / `count_false` count non-zero / zero values.
   */
  aggregate(kind: Aggregation): number | null {
    switch (kind) {
      case 'sum':
        return this.#sum;
      case 'avg':
        return this.#count === 0 ? 0 : this.#sum / this.#count;
      case 'min':
        return this.#min;
      case 'max':
        return this.#max;
      case 'count':
        return this.#count;
      case 'count_true':
        return this.#nonZero;
      case 'count_false':
        return this.#count - this.#nonZero;
    }
  }

  percentile(p: number): number | null {
    if (!this.#values) throw new Error('percentiles were not requested for this metric');
    if (!this.#sorted) {
      this.#values.sort((a, b) => a - b);
      this.#sorted = true;
    }
    return percentile(this.#values, p);
  }
}

/** What to report for one metric (`UsageMetricSpec` / `CallMetricSpec` after defaults). */
export interface MetricPlan<M extends string> {
  metric: M;
  aggregations: Aggregation[];
  percentiles: number[];
}

/** The rows of one group: how many were added, and an accumulator per metric. */
export class GroupStats<M extends string> {
  count = 0;
  readonly #metrics = new Map<M, MetricAccumulator>();

  constructor(plans: readonly MetricPlan<M>[]) {
    for (const { metric } of plans) {
      if (this.#metrics.has(metric)) continue;
      const keepValues = plans.some((plan) => plan.metric === metric && plan.percentiles.length > 0);
      this.#metrics.set(metric, new MetricAccumulator(keepValues));
    }
  }

  add(values: Readonly<Record<M, number | null>>): void {
    this.count += 1;
    for (const [metric, accumulator] of this.#metrics) accumulator.add(values[metric]);
  }

  /**
   * `<agg>_<metric>` and `p<P>_<metric>` columns for `plans`, then `count`. Metrics for which
   * `sumOnly` holds report null for everything but `sum` (docs/spec/calls.md §4.9, cost metrics).
   */
  columns(plans: readonly MetricPlan<M>[], sumOnly: (metric: M) => boolean): Record<string, number | null> {
    const out: Record<string, number | null> = {};
    for (const plan of plans) {
      const accumulator = this.#metrics.get(plan.metric)!;
      const restricted = sumOnly(plan.metric);
      for (const kind of plan.aggregations)
        out[`${kind}_${plan.metric}`] = restricted && kind !== 'sum' ? null : accumulator.aggregate(kind);
      for (const p of plan.percentiles)
        out[`p${percentileLabel(p)}_${plan.metric}`] = restricted ? null : accumulator.percentile(p);
    }
    out.count = this.count;
    return out;
  }
}
