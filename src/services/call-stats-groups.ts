import { formatMicros } from '../domain/time.js';
import type { MetricPlan } from '../domain/metric-stats.js';
import { InvalidRequestError } from '../errors/app-error.js';

/**
 * The groups of a `/calls/stats` answer (docs/spec/calls.md §4.9): rows keyed by bucket and labels,
 * whichever way their aggregates were computed (a scan of the calls, or the roll-up).
 */

/** Labels of one group: a value (null: none) per dimension, in the request's order. */
export type Labels = Record<string, string | null>;

/** Our choice: a grouped answer holds at most this many rows (buckets × groups); more is a 400. */
export const MAX_GROUPED_ROWS = 100_000;

const labelKey = (labels: Labels): string =>
  Object.values(labels)
    .map((v) => (v === null ? '\u0001' : v))
    .join('\u0000');

/** Sorts groups by their labels, dimension by dimension; null (none) last. */
function compareLabels(a: Labels, b: Labels): number {
  for (const k of Object.keys(a)) {
    const x = a[k] ?? null;
    const y = b[k] ?? null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** What a group reports: its `<agg>_<metric>`, `p<P>_<metric>` and `count` columns. */
export interface GroupColumns<M extends string> {
  columns(plans: readonly MetricPlan<M>[], sumOnly: (metric: M) => boolean): Record<string, number | null>;
}

/** Groups keyed by bucket index and labels (none for plain call buckets; the model for usage). */
export class BucketGroups<M extends string, G extends GroupColumns<M>> {
  readonly groups = new Map<string, G>();
  /** Every label set seen in the range, by key. */
  readonly labels = new Map<string, Labels>();
  constructor(
    readonly plans: MetricPlan<M>[],
    private readonly buckets: number,
    private readonly make: (plans: MetricPlan<M>[]) => G,
  ) {}

  /** The group of a bucket and label set, made (and its label set counted against the cap) on first use. */
  group(bucket: number, labels: Labels): G {
    const lk = labelKey(labels);
    const key = `${bucket}\u0002${lk}`;
    let group = this.groups.get(key);
    if (!group) {
      group = this.make(this.plans);
      this.groups.set(key, group);
      if (!this.labels.has(lk)) {
        this.labels.set(lk, labels);
        if (this.labels.size * this.buckets > MAX_GROUPED_ROWS)
          throw new InvalidRequestError(
            `The answer would exceed ${MAX_GROUPED_ROWS} rows (buckets × groups): use a coarser granularity, a shorter range or a narrower filter`,
          );
      }
    }
    return group;
  }

  /**
   * Every bucket, even empty ones (gap filling), times every label set seen in the range; `always`
   * adds the empty label set when nothing was seen (plain call buckets are emitted without calls).
   */
  rows(starts: readonly number[], sumOnly: (metric: M) => boolean, always: Labels | null): Record<string, unknown>[] {
    const empty = this.make(this.plans);
    const sets = [...this.labels.entries()].sort((a, b) => compareLabels(a[1], b[1]));
    if (sets.length === 0 && always) sets.push([labelKey(always), always]);
    const out: Record<string, unknown>[] = [];
    starts.forEach((start, i) => {
      const timestamp = formatMicros(start);
      for (const [lk, labels] of sets)
        out.push({
          timestamp,
          ...labels,
          ...(this.groups.get(`${i}\u0002${lk}`) ?? empty).columns(this.plans, sumOnly),
        });
    });
    return out;
  }
}
