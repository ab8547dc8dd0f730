import {
  histogramPercentile,
  ROLLUP_BUCKET_US,
  SCOPE_ALL,
  SCOPE_MODEL,
  SCOPE_NO_USAGE,
  type RollupStatsRow,
} from '../domain/call-rollup.js';
import type { Aggregation, MetricPlan } from '../domain/metric-stats.js';
import { percentileLabel } from '../domain/metric-stats.js';
import { opDisplayName } from '../domain/refs.js';
import { bucketIndex } from '../domain/time-zone.js';
import type { CallMetric, GroupDimension, UsageMetric } from '../schemas/calls-stats.js';
import type { CallsFilter, CallRollupStore } from '../store/types.js';
import type { BucketGroups, GroupColumns, Labels } from './call-stats-groups.js';
import type { LlmPrice, PriceBook } from './price-lookup.js';

/**
 * `/calls/stats` from the hourly roll-up (docs/call-rollups.md) instead of a scan of the calls, when
 * the roll-up can give the scan's answer: it counts every call, every bucket is a union of whole UTC
 * hours of the range, the filter names at most ops, and every metric asked for is a sum or count the
 * roll-up keeps (or a latency percentile, read from its histogram within LATENCY_RELATIVE_ERROR).
 */

/** Aggregations the roll-up keeps for call metrics: not min or max (a deletion cannot undo them). */
const CALL_AGGREGATIONS: ReadonlySet<Aggregation> = new Set(['sum', 'avg', 'count', 'count_true', 'count_false']);
const COST_METRICS: ReadonlySet<UsageMetric> = new Set(['input_cost', 'output_cost', 'total_cost']);

/** The filter as a test on the stored op name, or null when the filter needs more than the op. */
export function opMatcher(filter: CallsFilter | null): ((opName: string) => boolean) | null {
  if (filter === null) return () => true;
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'op_names' || value === null || value === undefined || value === false) continue;
    return null;
  }
  const names = filter.op_names ?? [];
  // the query compiler's rule (store/sql/calls-query/select.ts): none listed matches every op, `:*` every version
  if (names.length === 0) return () => true;
  const exact = new Set(names.filter((n) => !n.endsWith(':*')));
  const prefixes = names.filter((n) => n.endsWith(':*')).map((n) => n.slice(0, -1));
  return (op) => exact.has(op) || prefixes.some((p) => op.startsWith(p));
}

/** Whether every bucket boundary and both ends of the range fall on whole UTC hours. */
export function hourAligned(start: number, end: number, starts: readonly number[]): boolean {
  const whole = (t: number): boolean => t % ROLLUP_BUCKET_US === 0;
  return whole(start) && whole(end) && starts.slice(1).every(whole);
}

/** Whether the metric plans ask only for what the roll-up keeps. */
export function plansFit(calls: readonly MetricPlan<CallMetric>[], usage: readonly MetricPlan<UsageMetric>[]): boolean {
  const callsFit = calls.every(
    (p) =>
      p.aggregations.every((a) => CALL_AGGREGATIONS.has(a)) &&
      (p.metric === 'latency_ms' || p.percentiles.length === 0),
  );
  // cost metrics report a sum only (the rest is null either way); token metrics only their sums
  const usageFit = usage.every(
    (p) => COST_METRICS.has(p.metric) || (p.aggregations.every((a) => a === 'sum') && p.percentiles.length === 0),
  );
  return callsFit && usageFit;
}

/** Pre-aggregated sums of one metric in one group. */
interface Sums {
  sum: number;
  count: number;
  nonZero: number;
  bins: Map<number, number> | null;
}

/** A group filled from roll-up rows; reports the columns GroupStats reports for the same calls. */
export class RollupGroup<M extends string> implements GroupColumns<M> {
  count = 0;
  readonly metrics = new Map<M, Sums>();

  constructor(plans: readonly MetricPlan<M>[]) {
    for (const { metric } of plans) {
      const bins = plans.some((p) => p.metric === metric && p.percentiles.length > 0) ? new Map() : null;
      this.metrics.set(metric, { sum: 0, count: 0, nonZero: 0, bins });
    }
  }

  add(metric: M, sum: number, count: number, nonZero: number): void {
    const m = this.metrics.get(metric);
    if (!m) return;
    m.sum += sum;
    m.count += count;
    m.nonZero += nonZero;
  }

  addBin(metric: M, bin: number, n: number): void {
    const bins = this.metrics.get(metric)?.bins;
    if (bins) bins.set(bin, (bins.get(bin) ?? 0) + n);
  }

  columns(plans: readonly MetricPlan<M>[], sumOnly: (metric: M) => boolean): Record<string, number | null> {
    const out: Record<string, number | null> = {};
    for (const plan of plans) {
      const m = this.metrics.get(plan.metric)!;
      const restricted = sumOnly(plan.metric);
      for (const kind of plan.aggregations)
        out[`${kind}_${plan.metric}`] = restricted && kind !== 'sum' ? null : aggregate(m, kind);
      for (const p of plan.percentiles)
        out[`p${percentileLabel(p)}_${plan.metric}`] = restricted ? null : histogramPercentile(m.bins!, p);
    }
    out.count = this.count;
    return out;
  }
}

function aggregate(m: Sums, kind: Aggregation): number | null {
  switch (kind) {
    case 'sum':
      return m.sum;
    case 'avg':
      return m.count === 0 ? 0 : m.sum / m.count;
    case 'count':
      return m.count;
    case 'count_true':
      return m.nonZero;
    case 'count_false':
      return m.count - m.nonZero;
    default:
      // plansFit keeps min and max on the scan
      throw new Error(`the roll-up does not keep ${kind}`);
  }
}

export interface RollupAnswer {
  projectId: string;
  start: number;
  end: number;
  starts: readonly number[];
  dims: readonly GroupDimension[];
  matchOp: (opName: string) => boolean;
  /** Whether the filter names ops (the roll-up then keeps ops apart for matchOp). */
  filtersOps: boolean;
  prices: PriceBook;
  calls: BucketGroups<CallMetric, RollupGroup<CallMetric>>;
  usage: BucketGroups<UsageMetric, RollupGroup<UsageMetric>>;
  /** Latency percentiles over at most this many ended calls are left to the scan, which is exact. */
  exactPercentilesUpTo: number;
}

/**
 * Buckets the database may sum into: equal widths from the first bucket (UTC, or a zone without a
 * change of offset in the range), else one hour (hourly rows, mapped to buckets here).
 */
function uniformBuckets(starts: readonly number[], start: number): { origin: number; width: number } {
  const width = starts.length > 1 ? starts[1]! - starts[0]! : 0;
  const uniform = width > 0 && starts.every((s, i) => s === starts[0]! + i * width);
  return uniform ? { origin: starts[0]!, width } : { origin: start, width: ROLLUP_BUCKET_US };
}

/** The price of a model over `from <= t < to`, or undefined when it may change in between. */
function steadyPrice(prices: PriceBook, model: string, from: number, to: number): LlmPrice | null | undefined {
  const first = prices.find(model, from);
  const last = prices.find(model, to - 1);
  if (first !== last) return undefined;
  // a price chosen at the start that is already effective stays chosen unless a better one becomes
  // effective, and then the last lookup would differ (domain/costs.ts choosePrice)
  if (first === null) return null;
  const effective = (first as { effective_date?: unknown }).effective_date;
  return typeof effective === 'number' && effective <= from ? first : undefined;
}

/**
 * Fills `calls` and `usage` from the roll-up; false (the groups are then not used) when a price
 * changes inside an hour of the range, or latency percentiles cover few enough calls for the scan.
 */
export async function fillFromRollup(store: CallRollupStore, a: RollupAnswer): Promise<boolean> {
  const byModel = a.dims.includes('model');
  const wantCalls = a.calls.plans.length > 0;
  const wantUsage = a.usage.plans.length > 0;
  const scopes = new Set<number>();
  if (wantCalls) for (const s of byModel ? [SCOPE_MODEL, SCOPE_NO_USAGE] : [SCOPE_ALL]) scopes.add(s);
  if (wantUsage) scopes.add(SCOPE_MODEL);
  if (scopes.size === 0) return true;
  const latency = a.calls.plans.some((p) => p.metric === 'latency_ms' && p.percentiles.length > 0);
  const buckets = uniformBuckets(a.starts, a.start);
  const rows = await store.read({
    projectId: a.projectId,
    from: a.start,
    to: a.end,
    scopes: [...scopes],
    // histograms only for the call scopes (usage needs none)
    latencyScopes: latency ? (byModel ? [SCOPE_MODEL, SCOPE_NO_USAGE] : [SCOPE_ALL]) : [],
    ...buckets,
    byOp: a.dims.includes('op') || a.filtersOps,
    byStatus: a.dims.includes('status'),
  });
  const costs = a.usage.plans.some((p) => COST_METRICS.has(p.metric));
  const labelsOf = (row: { op_name: string; status: string }, model: string | null): Labels => {
    const labels: Labels = {};
    for (const d of a.dims)
      labels[d] = d === 'op' ? (opDisplayName(row.op_name) ?? row.op_name) : d === 'status' ? row.status : model;
    return labels;
  };
  const callScope = byModel ? (s: number) => s !== SCOPE_ALL : (s: number) => s === SCOPE_ALL;
  if (latency) {
    let ended = 0;
    for (const row of rows.stats) if (callScope(row.scope) && a.matchOp(row.op_name)) ended += row.latency_count;
    if (a.exactPercentilesUpTo > 0 && ended <= a.exactPercentilesUpTo) return false;
  }
  // pass 1 prices: bail out before any group is made
  const usageRows: Array<[RollupStatsRow, LlmPrice | null]> = [];
  if (wantUsage)
    for (const row of rows.stats) {
      if (row.scope !== SCOPE_MODEL || row.usage_rows === 0 || !a.matchOp(row.op_name)) continue;
      const price = costs ? steadyPrice(a.prices, row.model, row.hour, row.hour + buckets.width) : null;
      if (price === undefined) return false;
      usageRows.push([row, price]);
    }
  for (const row of rows.stats) {
    if (!wantCalls || !callScope(row.scope) || row.calls === 0 || !a.matchOp(row.op_name)) continue;
    const model = row.scope === SCOPE_MODEL ? row.model : null;
    const g = a.calls.group(bucketIndex(a.starts, row.hour), labelsOf(row, model));
    g.count += row.calls;
    g.add('call_count', row.calls, row.calls, row.calls);
    g.add('error_count', row.errors, row.calls, row.errors);
    g.add('latency_ms', row.latency_sum, row.latency_count, row.latency_nonzero);
  }
  for (const row of rows.latency) {
    if (!callScope(row.scope) || !a.matchOp(row.op_name)) continue;
    const model = row.scope === SCOPE_MODEL ? row.model : null;
    a.calls.group(bucketIndex(a.starts, row.hour), labelsOf(row, model)).addBin('latency_ms', row.bin, row.calls);
  }
  for (const [row, price] of usageRows) addUsage(a, row, price, { model: row.model, ...labelsOf(row, row.model) });
  return true;
}

function addUsage(a: RollupAnswer, row: RollupStatsRow, price: LlmPrice | null, labels: Labels): void {
  const g = a.usage.group(bucketIndex(a.starts, row.hour), labels);
  const n = row.usage_rows;
  g.count += n;
  // non-zero counts are not kept for tokens: plansFit allows their sums only
  g.add('input_tokens', row.input_tokens, n, 0);
  g.add('output_tokens', row.output_tokens, n, 0);
  g.add('total_tokens', row.total_tokens, n, 0);
  g.add('cache_read_input_tokens', row.cache_read_tokens, n, 0);
  g.add('cache_creation_input_tokens', row.cache_creation_tokens, n, 0);
  if (price === null) return;
  const input = row.input_tokens * price.prompt_token_cost;
  const output = row.output_tokens * price.completion_token_cost;
  g.add('input_cost', input, n, 0);
  g.add('output_cost', output, n, 0);
  g.add('total_cost', input + output, n, 0);
}
