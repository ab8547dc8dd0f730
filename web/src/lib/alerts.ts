import { isRecord } from './is-record.js';

/**
 * The alert form's fields and the AlertSpec value they publish (docs/alerts.md), both ways, and
 * the words the alerts page describes a spec with. Pure: no React, no fetch.
 */

export type AlertMetric = 'error_rate' | 'latency_ms' | 'cost' | 'tokens' | 'feedback';
export type AlertComparison = 'gt' | 'gte' | 'lt' | 'lte';

export const METRICS: ReadonlyArray<{ value: AlertMetric; label: string }> = [
  { value: 'error_rate', label: 'Error rate (share of calls with an exception)' },
  { value: 'latency_ms', label: 'Latency percentile (ms)' },
  { value: 'cost', label: 'Cost (USD)' },
  { value: 'tokens', label: 'Tokens' },
  { value: 'feedback', label: 'Feedback or monitor score (mean)' },
];

export const COMPARISONS: ReadonlyArray<{ value: AlertComparison; label: string }> = [
  { value: 'gt', label: '>' },
  { value: 'gte', label: '≥' },
  { value: 'lt', label: '<' },
  { value: 'lte', label: '≤' },
];

/** The server reads at most this many calls per evaluation (domain/alerts.ts MAX_WINDOW_CALLS). */
export const MAX_WINDOW_CALLS = 10_000;

export interface WebhookFields {
  url: string;
  format: 'json' | 'slack';
}

/** The form's fields, as strings where the user types them. */
export interface AlertFields {
  name: string;
  metric: AlertMetric;
  percentile: string;
  aggregate: 'sum' | 'mean';
  feedbackType: string;
  feedbackPath: string;
  comparison: AlertComparison;
  threshold: string;
  windowKind: 'calls' | 'seconds';
  windowSize: string;
  minCalls: string;
  /** Op names (not refs), comma separated; empty = every op. */
  ops: string;
  /** A calls query as JSON (`{"$expr": …}`), or empty. */
  query: string;
  webhooks: WebhookFields[];
}

export interface AlertSpecValue {
  op_scope: string[];
  spec: Record<string, unknown>;
}

export const emptyAlertFields = (): AlertFields => ({
  name: '',
  metric: 'error_rate',
  percentile: '95',
  aggregate: 'sum',
  feedbackType: '',
  feedbackPath: 'output.score',
  comparison: 'gt',
  threshold: '',
  windowKind: 'calls',
  windowSize: '100',
  minCalls: '1',
  ops: '',
  query: '',
  webhooks: [],
});

const str = (v: unknown, fallback: string): string =>
  typeof v === 'number' ? String(v) : typeof v === 'string' ? v : fallback;

/** The op name of an op ref (`weave:///e/p/op/name:*` → `name`); other strings as they are. */
export function opNameOfRef(ref: string): string {
  const m = /^weave:\/\/\/[^/]+\/[^/]+\/op\/([^:]+)(?::.*)?$/.exec(ref);
  return m ? decodeURIComponent(m[1]!) : ref;
}

/** An op name as the ref matching every version of it; a ref stays as it is. */
export function opRefOfName(projectId: string, name: string): string {
  return name.startsWith('weave:///') ? name : `weave:///${projectId}/op/${encodeURIComponent(name)}:*`;
}

/** A published alert's fields, for editing it. */
export function fieldsOfAlert(name: string, opScope: string[], spec: Record<string, unknown>): AlertFields {
  const empty = emptyAlertFields();
  const window = isRecord(spec.window) ? spec.window : {};
  const metric = METRICS.some((m) => m.value === spec.metric) ? (spec.metric as AlertMetric) : empty.metric;
  const comparison = COMPARISONS.some((c) => c.value === spec.comparison)
    ? (spec.comparison as AlertComparison)
    : empty.comparison;
  return {
    name,
    metric,
    percentile: str(spec.percentile, empty.percentile),
    aggregate: spec.aggregate === 'mean' ? 'mean' : 'sum',
    feedbackType: str(spec.feedback_type, ''),
    feedbackPath: str(spec.feedback_path, empty.feedbackPath),
    comparison,
    threshold: str(spec.threshold, ''),
    windowKind: window.seconds !== undefined ? 'seconds' : 'calls',
    windowSize: str(window.seconds ?? window.calls, empty.windowSize),
    minCalls: str(spec.min_calls, empty.minCalls),
    ops: opScope.map(opNameOfRef).join(', '),
    query: spec.query === undefined || spec.query === null ? '' : JSON.stringify(spec.query),
    webhooks: (Array.isArray(spec.webhooks) ? spec.webhooks : []).filter(isRecord).map((w) => ({
      url: str(w.url, ''),
      format: w.format === 'slack' ? 'slack' : 'json',
    })),
  };
}

const positiveInt = (s: string) => /^\d+$/.test(s.trim()) && Number(s) > 0;

/** The AlertSpec value the fields publish, or the first reason they cannot (said as the form shows it). */
export function alertSpecOfFields(projectId: string, f: AlertFields): AlertSpecValue | string {
  if (!/^[\w.-]{1,128}$/.test(f.name.trim())) return 'Name: letters, digits, ".", "_" or "-" (at most 128)';
  if (f.threshold.trim() === '' || !Number.isFinite(Number(f.threshold))) return 'Threshold must be a number';
  if (!positiveInt(f.windowSize)) return 'Window must be a whole number above 0';
  if (f.windowKind === 'calls' && Number(f.windowSize) > MAX_WINDOW_CALLS)
    return `Window: at most ${MAX_WINDOW_CALLS.toLocaleString('en-US')} calls`;
  if (!positiveInt(f.minCalls)) return 'Minimum calls must be a whole number above 0';
  const spec: Record<string, unknown> = { metric: f.metric };
  if (f.metric === 'latency_ms') {
    const p = Number(f.percentile);
    if (f.percentile.trim() === '' || !(p >= 0 && p <= 100)) return 'Percentile must be from 0 to 100';
    spec.percentile = p;
  }
  if (f.metric === 'cost' || f.metric === 'tokens') spec.aggregate = f.aggregate;
  if (f.metric === 'feedback') {
    if (!f.feedbackType.trim()) return 'Feedback type is required (e.g. wandb.runnable.my_scorer)';
    if (!f.feedbackPath.trim()) return 'Score field is required (e.g. output.score)';
    spec.feedback_type = f.feedbackType.trim();
    spec.feedback_path = f.feedbackPath.trim();
  }
  spec.comparison = f.comparison;
  spec.threshold = Number(f.threshold);
  spec.window = { [f.windowKind]: Number(f.windowSize) };
  spec.min_calls = Number(f.minCalls);
  if (f.query.trim()) {
    let query: unknown;
    try {
      query = JSON.parse(f.query);
    } catch {
      return 'Query filter must be JSON, e.g. {"$expr": {"$eq": [{"$getField": "op_name"}, {"$literal": "chat"}]}}';
    }
    if (!isRecord(query) || query.$expr === undefined) return 'Query filter must be an object with "$expr"';
    spec.query = query;
  }
  const webhooks: WebhookFields[] = [];
  for (const [i, w] of f.webhooks.entries()) {
    if (!w.url.trim()) continue;
    if (!/^https?:\/\/\S+$/.test(w.url.trim())) return `Webhook ${i + 1}: the URL must start with http:// or https://`;
    webhooks.push({ url: w.url.trim(), format: w.format });
  }
  spec.webhooks = webhooks;
  const opScope = f.ops
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((name) => opRefOfName(projectId, name));
  return { op_scope: opScope, spec };
}

const METRIC_WORDS: Record<AlertMetric, string> = {
  error_rate: 'error rate',
  latency_ms: 'latency',
  cost: 'cost',
  tokens: 'tokens',
  feedback: 'feedback',
};

/** "error rate > 0.2", "p95 latency > 2000 ms", "mean tokens ≥ 800", "wandb.runnable.s output.score < 0.5". */
export function describeCondition(spec: Record<string, unknown>): string {
  const metric = typeof spec.metric === 'string' ? spec.metric : '?';
  const comparison = COMPARISONS.find((c) => c.value === (spec.comparison ?? 'gt'))?.label ?? String(spec.comparison);
  const threshold = typeof spec.threshold === 'number' ? String(spec.threshold) : '?';
  let what = METRIC_WORDS[metric as AlertMetric] ?? metric;
  if (metric === 'latency_ms') what = `p${str(spec.percentile, '95')} latency (ms)`;
  if (metric === 'cost' || metric === 'tokens') what = `${spec.aggregate === 'mean' ? 'mean' : 'total'} ${what}`;
  if (metric === 'feedback') what = `mean ${str(spec.feedback_type, '?')} ${str(spec.feedback_path, '?')}`;
  return `${what} ${comparison} ${threshold}`;
}

/** "last 100 calls", "last 300 s". */
export function describeWindow(spec: Record<string, unknown>): string {
  const w = isRecord(spec.window) ? spec.window : {};
  if (typeof w.calls === 'number') return `last ${w.calls.toLocaleString('en-US')} call${w.calls === 1 ? '' : 's'}`;
  if (typeof w.seconds === 'number') return `last ${w.seconds.toLocaleString('en-US')} s`;
  return '—';
}
