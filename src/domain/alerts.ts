/**
 * Alerts (docs/alerts.md): Weave's `AlertSpec` object class has `op_scope` (op refs the alert
 * applies to) and a free-form `spec` dictionary; Weave's sources do not define what `spec` holds,
 * so its fields are Heddle's design: a threshold on a metric over a window of recent calls, and
 * where to send notifications.
 */

export type AlertMetric = 'error_rate' | 'latency_ms' | 'cost' | 'tokens' | 'feedback';
export type AlertComparison = 'gt' | 'gte' | 'lt' | 'lte';
export type WebhookFormat = 'json' | 'slack';

export interface AlertSpecValue {
  /** Op refs (a `:*` version matches every version); empty = every op. */
  opScope: string[];
  metric: AlertMetric;
  /** For latency: the percentile (0–100, default 95). */
  percentile: number;
  /** For feedback: the feedback type and the payload field averaged (monitor scores are feedback too). */
  feedbackType: string | null;
  feedbackPath: string | null;
  /** For cost and tokens: `sum` (default) or `mean` per call. */
  aggregate: 'sum' | 'mean';
  comparison: AlertComparison;
  threshold: number;
  /** The window: the last `windowCalls` calls, or those started in the last `windowSeconds`. */
  windowCalls: number | null;
  windowSeconds: number | null;
  /** Fewer matching calls than this leave the state as it is (no data is not a breach). */
  minCalls: number;
  /** A calls query (`{"$expr": …}`) the calls must match too, or null. */
  query: { $expr: unknown } | null;
  webhooks: Array<{ url: string; format: WebhookFormat }>;
}

/** The most calls one evaluation reads (a time window over a busy op is capped here). */
export const MAX_WINDOW_CALLS = 10_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const METRICS: readonly AlertMetric[] = ['error_rate', 'latency_ms', 'cost', 'tokens', 'feedback'];
const COMPARISONS: readonly AlertComparison[] = ['gt', 'gte', 'lt', 'lte'];

/** Reads an AlertSpec value; the reason when it cannot be evaluated (the publish is refused with it). */
export function parseAlertSpec(val: unknown): AlertSpecValue | string {
  const v = isRecord(val) ? val : {};
  const spec = isRecord(v.spec) ? v.spec : {};
  const opScope = Array.isArray(v.op_scope) ? v.op_scope.filter((s): s is string => typeof s === 'string') : [];
  const metric = spec.metric;
  if (typeof metric !== 'string' || !METRICS.includes(metric as AlertMetric))
    return `spec.metric must be one of ${METRICS.join(', ')}`;
  const comparison = spec.comparison ?? 'gt';
  if (typeof comparison !== 'string' || !COMPARISONS.includes(comparison as AlertComparison))
    return `spec.comparison must be one of ${COMPARISONS.join(', ')}`;
  if (typeof spec.threshold !== 'number' || !Number.isFinite(spec.threshold)) return 'spec.threshold must be a number';
  const window = isRecord(spec.window) ? spec.window : {};
  const calls = window.calls;
  const seconds = window.seconds;
  const positiveInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x > 0;
  if ((calls === undefined) === (seconds === undefined))
    return 'spec.window needs exactly one of calls (the last N calls) or seconds (the last T seconds)';
  if (calls !== undefined && (!positiveInt(calls) || calls > MAX_WINDOW_CALLS))
    return `spec.window.calls must be an integer from 1 to ${MAX_WINDOW_CALLS}`;
  if (seconds !== undefined && !positiveInt(seconds)) return 'spec.window.seconds must be a positive integer';
  const percentile = spec.percentile ?? 95;
  if (typeof percentile !== 'number' || percentile < 0 || percentile > 100)
    return 'spec.percentile must be from 0 to 100';
  const feedbackType = typeof spec.feedback_type === 'string' ? spec.feedback_type : null;
  const feedbackPath = typeof spec.feedback_path === 'string' ? spec.feedback_path : null;
  if (metric === 'feedback' && (feedbackType === null || feedbackPath === null))
    return 'a feedback alert needs spec.feedback_type and spec.feedback_path (a payload field, e.g. "output.score")';
  const aggregate = spec.aggregate ?? 'sum';
  if (aggregate !== 'sum' && aggregate !== 'mean') return 'spec.aggregate must be sum or mean';
  const minCalls = spec.min_calls ?? 1;
  if (!positiveInt(minCalls)) return 'spec.min_calls must be a positive integer';
  const query = isRecord(spec.query) && spec.query.$expr !== undefined ? { $expr: spec.query.$expr } : null;
  const webhooks: AlertSpecValue['webhooks'] = [];
  for (const [i, hook] of (Array.isArray(spec.webhooks) ? spec.webhooks : []).entries()) {
    if (!isRecord(hook) || typeof hook.url !== 'string' || !/^https?:\/\//.test(hook.url))
      return `spec.webhooks[${i}].url must be an http(s) URL`;
    const format = hook.format ?? 'json';
    if (format !== 'json' && format !== 'slack') return `spec.webhooks[${i}].format must be json or slack`;
    webhooks.push({ url: hook.url, format });
  }
  return {
    opScope,
    metric: metric as AlertMetric,
    percentile,
    feedbackType,
    feedbackPath,
    aggregate,
    comparison: comparison as AlertComparison,
    threshold: spec.threshold,
    windowCalls: calls ?? null,
    windowSeconds: seconds ?? null,
    minCalls,
    query,
    webhooks,
  };
}

/** What the metric reads of one call (its JSON as the calls API returns it). */
export interface WindowCall {
  started_at?: string;
  ended_at?: string | null;
  exception?: string | null;
  summary?: Record<string, unknown> | null;
}

function pathValue(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** A finite number field of a record, else 0. */
function num(record: unknown, key: string): number {
  const value = isRecord(record) ? Number(record[key]) : NaN;
  return Number.isFinite(value) ? value : 0;
}

/** The records under `record[key]` (usage per model, costs per model), or none. */
function entries(record: unknown, key: string): unknown[] {
  const value = isRecord(record) ? record[key] : undefined;
  return isRecord(value) ? Object.values(value) : [];
}

function percentileOf(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const sumOr = (values: number[], aggregate: 'sum' | 'mean'): number => {
  const sum = values.reduce((a, b) => a + b, 0);
  return aggregate === 'sum' ? sum : sum / values.length;
};

const tokensOf = (usage: unknown): number =>
  num(usage, 'total_tokens') || num(usage, 'prompt_tokens') + num(usage, 'completion_tokens');

const costOf = (cost: unknown): number =>
  num(cost, 'prompt_tokens_total_cost') + num(cost, 'completion_tokens_total_cost');

function latencyOf(c: WindowCall, weave: unknown): number | null {
  const stated = isRecord(weave) ? weave.latency_ms : undefined;
  if (typeof stated === 'number' && Number.isFinite(stated)) return stated;
  if (!c.ended_at || !c.started_at) return null;
  const ms = Date.parse(c.ended_at) - Date.parse(c.started_at);
  return Number.isFinite(ms) ? ms : null;
}

function feedbackScores(spec: AlertSpecValue, calls: WindowCall[]): number[] {
  const scores: number[] = [];
  for (const c of calls) {
    const weave = c.summary?.weave;
    const list = isRecord(weave) && Array.isArray(weave.feedback) ? weave.feedback : [];
    for (const f of list) {
      if (!isRecord(f) || f.feedback_type !== spec.feedbackType) continue;
      const value = pathValue(f.payload, spec.feedbackPath!);
      if (typeof value === 'number' && Number.isFinite(value)) scores.push(value);
      else if (typeof value === 'boolean') scores.push(value ? 1 : 0);
    }
  }
  return scores;
}

/** The metric over the window's calls, or null when it has too few to say. */
export function alertMetric(spec: AlertSpecValue, calls: WindowCall[]): number | null {
  if (calls.length < spec.minCalls) return null;
  switch (spec.metric) {
    case 'error_rate':
      return calls.filter((c) => c.exception != null).length / calls.length;
    case 'latency_ms': {
      const latencies = calls.map((c) => latencyOf(c, c.summary?.weave)).filter((x): x is number => x !== null);
      return latencies.length < spec.minCalls ? null : percentileOf(latencies, spec.percentile);
    }
    case 'tokens':
      return sumOr(
        calls.map((c) => entries(c.summary, 'usage').reduce((n: number, u) => n + tokensOf(u), 0)),
        spec.aggregate,
      );
    case 'cost':
      return sumOr(
        calls.map((c) => entries(c.summary?.weave, 'costs').reduce((n: number, cost) => n + costOf(cost), 0)),
        spec.aggregate,
      );
    case 'feedback': {
      const scores = feedbackScores(spec, calls);
      return scores.length < spec.minCalls ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
    }
  }
}

/** Whether an alert notifies no one at `now` (microseconds): muted, and its timed mute not over yet. */
export function isMutedAt(mute: { muted: boolean; muted_until: number | null }, now: number): boolean {
  return mute.muted && (mute.muted_until === null || mute.muted_until > now);
}

export function breaches(spec: AlertSpecValue, value: number): boolean {
  switch (spec.comparison) {
    case 'gt':
      return value > spec.threshold;
    case 'gte':
      return value >= spec.threshold;
    case 'lt':
      return value < spec.threshold;
    case 'lte':
      return value <= spec.threshold;
  }
}

/** What a notification says: one state change of one alert. */
export interface AlertEvent {
  event_id: string;
  project_id: string;
  alert_id: string;
  state: 'firing' | 'resolved';
  metric: AlertMetric;
  value: number;
  comparison: AlertComparison;
  threshold: number;
  at: string;
}

const WORDS: Record<AlertComparison, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

/** The body a webhook gets: the event itself (json), or a Slack incoming-webhook message (slack). */
export function webhookBody(event: AlertEvent, format: WebhookFormat): unknown {
  if (format === 'json') return { type: `alert.${event.state}`, ...event };
  const icon = event.state === 'firing' ? ':rotating_light:' : ':white_check_mark:';
  const text =
    `${icon} Heddle alert *${event.alert_id}* in ${event.project_id} is ${event.state}: ` +
    `${event.metric} = ${event.value} (threshold ${WORDS[event.comparison]} ${event.threshold})`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
