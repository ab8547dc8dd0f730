import { usageEntries, type ModelUsage } from '../domain/llm-usage.js';
import { GroupStats, type MetricPlan } from '../domain/metric-stats.js';
import { opDisplayName } from '../domain/refs.js';
import { formatMicros, nowMicros, toMicros } from '../domain/time.js';
import { bucketIndex, bucketStarts, canonicalTimeZone } from '../domain/time-zone.js';
import { InvalidRequestError } from '../errors/app-error.js';
import type { CallMetric, CallStatsReq, CallStatsRes, GroupDimension, UsageMetric } from '../schemas/calls-stats.js';
import type { CallRow, CallRowColumn, CallsFilter, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { checkFilter } from './call-query-service.js';
import { NO_PRICE_BOOK, NO_PRICES, type PriceBook, type PriceLookup } from './price-lookup.js';
import type { ProjectAccess } from './project-access.js';
import { BucketGroups, type GroupColumns, type Labels } from './call-stats-groups.js';
import { fillFromRollup, hourAligned, opMatcher, plansFit, RollupGroup } from './call-stats-rollup.js';

export { MAX_GROUPED_ROWS } from './call-stats-groups.js';

/** docs/spec/calls.md §4.9: at most this many buckets; a finer granularity is raised. */
export const MAX_BUCKETS = 10_000;
/**
 * Our choice (docs/call-rollups.md): latency percentiles over at most this many ended calls come
 * from the scan, exact (about 75 ms of scan on the 2-core bench machine); above, from the roll-up's
 * histogram, within LATENCY_RELATIVE_ERROR.
 */
export const EXACT_PERCENTILES_UP_TO = 10_000;
/** Our choice (§4.9): the longest range one request may cover. */
export const MAX_RANGE_DAYS = 366;

const SECOND_US = 1_000_000;
const COST_METRICS: ReadonlySet<string> = new Set<UsageMetric>(['input_cost', 'output_cost', 'total_cost']);
const costOnlySum = (metric: string): boolean => COST_METRICS.has(metric);
const noRestriction = (): boolean => false;

/** Bucket seconds for a range: the automatic choice of §4.9 when none is given, then capped at MAX_BUCKETS. */
export function resolveGranularity(rangeSeconds: number, requested: number | null | undefined): number {
  let granularity = requested ?? autoGranularity(rangeSeconds);
  if (rangeSeconds / granularity > MAX_BUCKETS) granularity = Math.floor(rangeSeconds / MAX_BUCKETS) + 1;
  return granularity;
}

function autoGranularity(rangeSeconds: number): number {
  const hour = 3600;
  if (rangeSeconds <= 2 * hour) return 300;
  if (rangeSeconds <= 12 * hour) return hour;
  if (rangeSeconds <= 3 * 24 * hour) return 6 * hour;
  if (rangeSeconds <= 14 * 24 * hour) return 12 * hour;
  return 24 * hour;
}

/** Defaults of a metric spec: absent aggregations mean `["sum"]`, and with nothing left at all `sum` is used. */
function toPlans<M extends string>(
  specs:
    | Array<{ metric: M; aggregations?: MetricPlan<M>['aggregations'] | null; percentiles?: number[] | null }>
    | null
    | undefined,
): MetricPlan<M>[] {
  return (specs ?? []).map((spec) => {
    for (const p of spec.percentiles ?? []) {
      if (!(p >= 0 && p <= 100)) throw new InvalidRequestError(`Percentile must be between 0 and 100, got ${p}`);
    }
    const aggregations = spec.aggregations === undefined ? ['sum' as const] : (spec.aggregations ?? []);
    const percentiles = spec.percentiles ?? [];
    return {
      metric: spec.metric,
      aggregations: aggregations.length === 0 && percentiles.length === 0 ? ['sum'] : aggregations,
      percentiles,
    };
  });
}

interface StatsWindow {
  start: number;
  end: number;
  granularity: number;
  timezone: string;
  zone: string;
}

/** The validated time range of a request (400 for every rule of §4.9). */
function resolveWindow(req: CallStatsReq): StatsWindow {
  // toMicros refuses instants outside years 1–9999 (a Unix-seconds number may be anything)
  const start = toMicros(req.start);
  const end = req.end == null ? nowMicros() : toMicros(req.end);
  if (start === null || end === null)
    throw new InvalidRequestError('start and end must be dates between the years 1 and 9999');
  if (end < start) throw new InvalidRequestError('end must not be before start');
  if (end - start > MAX_RANGE_DAYS * 86_400 * SECOND_US)
    throw new InvalidRequestError(`The time range must not exceed ${MAX_RANGE_DAYS} days`);
  if (req.granularity != null && req.granularity <= 0)
    throw new InvalidRequestError('granularity must be a positive number of seconds');
  const timezone = req.timezone ?? 'UTC';
  const zone = canonicalTimeZone(timezone);
  if (zone === null) throw new InvalidRequestError(`Unknown timezone: ${timezone}`);
  return { start, end, granularity: resolveGranularity((end - start) / SECOND_US, req.granularity), timezone, zone };
}

function callValues(row: CallRow): Record<CallMetric, number | null> {
  return {
    latency_ms: row.ended_at == null ? null : Math.floor((row.ended_at - row.started_at) / 1000),
    call_count: 1,
    error_count: row.exception != null ? 1 : 0,
  };
}

/** §4.9 usage metric values of one (call, model) row; unpriced rows have no cost (they add nothing to a sum). */
function usageValues(u: ModelUsage, startedAt: number, prices: PriceBook): Record<UsageMetric, number | null> {
  const price = prices.find(u.model, startedAt);
  const inputCost = price ? u.prompt_tokens * price.prompt_token_cost : null;
  const outputCost = price ? u.completion_tokens * price.completion_token_cost : null;
  return {
    input_tokens: u.prompt_tokens,
    output_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    input_cost: inputCost,
    output_cost: outputCost,
    total_cost: price ? inputCost! + outputCost! : null,
  };
}

type ScanGroups<M extends string> = BucketGroups<M, GroupStats<M>>;
const newGroupStats = <M extends string>(plans: MetricPlan<M>[]): GroupStats<M> => new GroupStats(plans);
const newRollupGroup = <M extends string>(plans: MetricPlan<M>[]): RollupGroup<M> => new RollupGroup(plans);

/** The groups of an answer, however they were filled. */
interface StatsGroups {
  usage: BucketGroups<UsageMetric, GroupColumns<UsageMetric>>;
  calls: BucketGroups<CallMetric, GroupColumns<CallMetric>>;
}

/** A validated request. */
interface StatsQuery {
  projectId: string;
  filter: CallsFilter | null;
  window: StatsWindow;
  starts: readonly number[];
  dims: readonly GroupDimension[];
  capBuckets: number;
  usagePlans: MetricPlan<UsageMetric>[];
  callPlans: MetricPlan<CallMetric>[];
}

/** A call's status for grouping: error (an exception), running (no end yet) or success. */
const callStatus = (row: CallRow): string =>
  row.exception != null ? 'error' : row.ended_at == null ? 'running' : 'success';

/** The op name of an op ref, parsed once per distinct op (a range holds few ops and many calls). */
class OpNames {
  readonly #names = new Map<string, string>();
  of(opName: string): string {
    let name = this.#names.get(opName);
    if (name === undefined) this.#names.set(opName, (name = opDisplayName(opName) ?? opName));
    return name;
  }
}

/** The group labels of a call, in the order of `dims`; `model` is the usage entry's model. */
function callLabels(row: CallRow, dims: readonly GroupDimension[], model: string | null, ops: OpNames): Labels {
  const labels: Labels = {};
  for (const d of dims) labels[d] = d === 'op' ? ops.of(row.op_name) : d === 'status' ? callStatus(row) : model;
  return labels;
}

/** Checks the dimensions: no repeats (the schema caps them at two). */
function checkGroupBy(dims: readonly GroupDimension[] | null | undefined): GroupDimension[] {
  const out = [...(dims ?? [])];
  if (new Set(out).size !== out.length) throw new InvalidRequestError('group_by must not repeat a dimension');
  return out;
}

/** `/calls/stats`: time-bucketed call and usage metrics (docs/spec/calls.md §4.9). */
export class CallStatsService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly prices: PriceLookup = NO_PRICES,
  ) {}

  #complete = false;

  async callStats(caller: Caller, req: CallStatsReq): Promise<CallStatsRes> {
    return (await this.callStatsVia(caller, req, 'auto'))!.res;
  }

  /**
   * `callStats` through a chosen path: `scan` reads the calls, `rollup` the hourly roll-up
   * (docs/call-rollups.md; null when the request cannot be answered from it), `auto` the roll-up
   * when it can answer, else the scan. Reports which path answered.
   */
  async callStatsVia(
    caller: Caller,
    req: CallStatsReq,
    via: 'auto' | 'scan' | 'rollup',
  ): Promise<{ res: CallStatsRes; path: 'scan' | 'rollup' } | null> {
    this.access.assertCanRead(caller, req.project_id);
    const window = resolveWindow(req);
    const dims = checkGroupBy(req.group_by);
    const starts = bucketStarts(window.start, window.end, window.granularity, window.zone);
    // only a grouped answer is capped: ungrouped ones stay as §4.9 defines them
    const capBuckets = dims.length > 0 ? starts.length : 0;
    const usagePlans = toPlans<UsageMetric>(req.usage_metrics);
    const callPlans = toPlans<CallMetric>(req.call_metrics);
    const filter = checkFilter(req.filter);
    const q: StatsQuery = {
      projectId: req.project_id,
      filter,
      window,
      starts,
      dims,
      capBuckets,
      usagePlans,
      callPlans,
    };
    let groups: StatsGroups | null = via === 'scan' ? null : await this.#fromRollup(q, via);
    const path = groups === null ? 'scan' : 'rollup';
    if (groups === null) {
      if (via === 'rollup') return null;
      groups = await this.#scan(q);
    }
    const { usage, calls } = groups;
    const res = {
      start: formatMicros(window.start),
      end: formatMicros(window.end),
      granularity: window.granularity,
      timezone: window.timezone,
      usage_buckets: usage.rows(starts, costOnlySum, null),
      // plain call buckets are emitted even without calls; grouped ones only for groups seen
      call_buckets: calls.plans.length === 0 ? [] : calls.rows(starts, noRestriction, dims.length === 0 ? {} : null),
    };
    return { res, path };
  }

  async #scan(q: StatsQuery): Promise<StatsGroups> {
    const usage = new BucketGroups(q.usagePlans, q.capBuckets, newGroupStats<UsageMetric>);
    const calls = new BucketGroups(q.callPlans, q.capBuckets, newGroupStats<CallMetric>);
    if (usage.plans.length > 0 || calls.plans.length > 0)
      await this.#aggregate(q.projectId, q.filter, q.window, q.starts, q.dims, usage, calls);
    return { usage, calls };
  }

  /** The groups filled from the roll-up, or null when it cannot give the scan's answer (call-stats-rollup.ts). */
  async #fromRollup(q: StatsQuery, via: 'auto' | 'rollup'): Promise<StatsGroups | null> {
    const matchOp = opMatcher(q.filter);
    if (matchOp === null || !hourAligned(q.window.start, q.window.end, q.starts)) return null;
    if (!plansFit(q.callPlans, q.usagePlans) || !(await this.#rollupComplete())) return null;
    const usage = new BucketGroups(q.usagePlans, q.capBuckets, newRollupGroup<UsageMetric>);
    const calls = new BucketGroups(q.callPlans, q.capBuckets, newRollupGroup<CallMetric>);
    const wantsCosts = q.usagePlans.some((plan) => COST_METRICS.has(plan.metric));
    const prices = wantsCosts ? await this.prices.forProject(q.projectId) : NO_PRICE_BOOK;
    const { projectId, starts, dims } = q;
    const exactPercentilesUpTo = via === 'auto' ? EXACT_PERCENTILES_UP_TO : 0;
    const window = { start: q.window.start, end: q.window.end };
    const filtersOps = (q.filter?.op_names?.length ?? 0) > 0;
    const answer = {
      projectId,
      ...window,
      starts,
      dims,
      matchOp,
      filtersOps,
      prices,
      calls,
      usage,
      exactPercentilesUpTo,
    };
    return (await fillFromRollup(this.store.rollups, answer)) ? { usage, calls } : null;
  }

  /** Once complete the roll-up stays complete, so only the answer `false` is asked again. */
  async #rollupComplete(): Promise<boolean> {
    if (!this.#complete) this.#complete = await this.store.rollups.complete();
    return this.#complete;
  }

  /** One pass over the calls of the range, streamed: each call lands in the bucket whose interval contains its start. */
  async #aggregate(
    projectId: string,
    filter: CallsFilter | null,
    window: StatsWindow,
    starts: readonly number[],
    dims: readonly GroupDimension[],
    usage: ScanGroups<UsageMetric>,
    calls: ScanGroups<CallMetric>,
  ): Promise<void> {
    const wantsCosts = usage.plans.some((plan) => COST_METRICS.has(plan.metric));
    const prices = wantsCosts ? await this.prices.forProject(projectId) : NO_PRICE_BOOK;
    const byModel = dims.includes('model');
    const ops = new OpNames();
    const columns: CallRowColumn[] = [];
    if (calls.plans.length > 0 || dims.includes('status')) columns.push('ended_at', 'exception');
    if (usage.plans.length > 0 || byModel) columns.push('summary');
    // insertion order: the bucket comes from a search over the bucket starts, so no sort is needed
    const rows = this.store.calls.query({
      project_id: projectId,
      filter,
      sort_by: [],
      columns,
      started_from: window.start,
      started_before: window.end,
    });
    for await (const row of rows) {
      const bucket = bucketIndex(starts, row.started_at);
      if (bucket < 0) continue;
      const entries = usage.plans.length > 0 || byModel ? usageEntries(row.summary) : [];
      if (calls.plans.length > 0) {
        const values = callValues(row);
        if (!byModel) calls.group(bucket, callLabels(row, dims, null, ops)).add(values);
        // a call that used several models counts once under each; one without usage under none (null)
        else if (entries.length === 0) calls.group(bucket, callLabels(row, dims, null, ops)).add(values);
        else for (const u of entries) calls.group(bucket, callLabels(row, dims, u.model, ops)).add(values);
      }
      if (usage.plans.length === 0) continue;
      for (const u of entries) {
        const labels: Labels = { model: u.model, ...callLabels(row, dims, u.model, ops) };
        usage.group(bucket, labels).add(usageValues(u, row.started_at, prices));
      }
    }
  }
}
