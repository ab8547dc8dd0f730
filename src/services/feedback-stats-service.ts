import {
  DEFAULT_AGGREGATIONS,
  extract,
  leafPaths,
  metricSummary,
  valueAt,
  valueTypeOf,
  type FeedbackMetricPlan,
} from '../domain/feedback-stats.js';
import { canonicalTimeZone } from '../domain/time-zone.js';
import { formatMicros, nowMicros, toMicros } from '../domain/time.js';
import { RequestValidationError } from '../errors/app-error.js';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import type { FeedbackPayloadSchemaReq, FeedbackStatsReq } from '../schemas/feedback.js';
import type { FeedbackRow, FeedbackWindow, TraceStore } from '../store/types.js';
import type { Caller } from './auth-service.js';
import { resolveGranularity } from './call-stats-service.js';
import type { ProjectAccess } from './project-access.js';

/** `/feedback/payload_schema` and `/feedback/stats` (docs/spec/objects.md §7.7, §7.8). */

const SECOND_US = 1_000_000;
const MAX_RANGE_US = 31 * 24 * 3600 * SECOND_US;
const DEFAULT_SAMPLE_LIMIT = 2000;

type WindowReq = Pick<FeedbackStatsReq, 'project_id' | 'start' | 'end' | 'feedback_type' | 'trigger_ref'>;

/** The window of a request; an inverted or over-long range is a 422 like other model validators (§9). */
function windowOf(req: WindowReq): FeedbackWindow {
  const from = toMicros(req.start);
  const to = req.end == null ? nowMicros() : toMicros(req.end);
  if (from === null || to === null) throw new ObjectInvalidRequestError('start and end must be valid instants');
  const reject = (msg: string): never => {
    throw new RequestValidationError([{ loc: ['body'], msg: `Value error, ${msg}`, type: 'value_error' }]);
  };
  if (to < from) reject('end must not be before start');
  if (to - from > MAX_RANGE_US) reject('the range must not exceed 31 days');
  const prefix = req.trigger_ref != null && req.trigger_ref.endsWith(':*');
  return {
    project_id: req.project_id,
    from,
    to,
    feedback_type: req.feedback_type ?? null,
    trigger_ref: req.trigger_ref == null ? null : prefix ? req.trigger_ref.slice(0, -1) : req.trigger_ref,
    trigger_ref_prefix: prefix,
  };
}

function toPlans(req: FeedbackStatsReq): FeedbackMetricPlan[] {
  return (req.metrics ?? []).map((m) => {
    const valueType = m.value_type ?? 'numeric';
    const aggregations = m.aggregations && m.aggregations.length > 0 ? m.aggregations : DEFAULT_AGGREGATIONS[valueType];
    const percentiles = valueType === 'numeric' ? (m.percentiles ?? []) : [];
    return {
      json_path: m.json_path,
      slug: m.json_path.replaceAll('.', '_'),
      value_type: valueType,
      aggregations,
      percentiles,
    };
  });
}

export class FeedbackStatsService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
  ) {}

  async payloadSchema(
    caller: Caller,
    req: FeedbackPayloadSchemaReq,
  ): Promise<{ paths: Array<{ json_path: string; value_type: string }> }> {
    this.access.assertCanRead(caller, req.project_id);
    const window = windowOf(req);
    const limit = req.sample_limit ?? DEFAULT_SAMPLE_LIMIT;
    // the newest payload per distinct trigger_ref, newest first
    const rows = await this.store.feedback.inWindow({ ...window, newest_per_trigger_ref: true }, limit);
    const samples: unknown[] = rows.map((row) => JSON.parse(row.payload));
    const paths = new Map<string, unknown[]>();
    for (const sample of samples)
      for (const [path, values] of leafPaths(sample)) paths.set(path, [...(paths.get(path) ?? []), ...values]);
    const sorted = [...paths.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { paths: sorted.map((path) => ({ json_path: path, value_type: valueTypeOf(paths.get(path)!) })) };
  }

  async stats(caller: Caller, req: FeedbackStatsReq): Promise<Record<string, unknown>> {
    this.access.assertCanRead(caller, req.project_id);
    const window = windowOf(req);
    const timezone = req.timezone ?? 'UTC';
    if (canonicalTimeZone(timezone) === null) throw new ObjectInvalidRequestError(`Unknown timezone: ${timezone}`);
    if (req.granularity != null && req.granularity <= 0)
      throw new ObjectInvalidRequestError('granularity must be a positive number of seconds');
    const plans = toPlans(req);
    const base = { start: formatMicros(window.from), end: formatMicros(window.to), timezone };
    if (plans.length === 0) return { ...base, granularity: 3600, buckets: [], window_stats: null };
    const granularity = resolveGranularity((window.to - window.from) / SECOND_US, req.granularity);
    const step = granularity * SECOND_US;
    const rows = await this.store.feedback.inWindow(window, null);
    const count = Math.max(1, Math.ceil((window.to - window.from) / step));
    const buckets: FeedbackRow[][] = Array.from({ length: count }, () => []);
    for (const row of rows) buckets[Math.min(count - 1, Math.floor((row.created_at - window.from) / step))]!.push(row);
    const valuesOf = (list: FeedbackRow[], plan: FeedbackMetricPlan): number[] =>
      list
        .map((row) => extract(valueAt(JSON.parse(row.payload), plan.json_path), plan.value_type))
        .filter((v): v is number => v !== null);
    const out = buckets.map((list, i) => {
      const bucket: Record<string, unknown> = { timestamp: formatMicros(window.from + i * step), count: list.length };
      for (const plan of plans) {
        for (const [key, value] of Object.entries(metricSummary(valuesOf(list, plan), plan)))
          bucket[`${key}_${plan.slug}`] = value;
      }
      return bucket;
    });
    const windowStats: Record<string, unknown> = {};
    for (const plan of plans) windowStats[plan.slug] = metricSummary(valuesOf(rows, plan), plan);
    return { ...base, granularity, buckets: out, window_stats: windowStats };
  }
}
