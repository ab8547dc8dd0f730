import { percentile, percentileLabel, type Aggregation } from './metric-stats.js';

/**
 * Pure parts of `/feedback/payload_schema` and `/feedback/stats` (docs/spec/objects.md §7.7, §7.8):
 * leaf paths of payloads, value extraction by type, and the per-bucket aggregates.
 */

export type FeedbackValueType = 'numeric' | 'boolean' | 'categorical';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every leaf dot-path of a payload with its value; keys with `.` or blank keys, and arrays, are skipped. */
export function leafPaths(payload: unknown, prefix = '', out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  if (!isObject(payload)) return out;
  for (const [key, value] of Object.entries(payload)) {
    if (key.includes('.') || key.trim() === '' || Array.isArray(value)) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (isObject(value)) leafPaths(value, path, out);
    else {
      const seen = out.get(path);
      if (seen) seen.push(value);
      else out.set(path, [value]);
    }
  }
  return out;
}

/** §7.7: only bool/null → boolean; only numbers/null → numeric; otherwise categorical. */
export function valueTypeOf(values: readonly unknown[]): FeedbackValueType {
  if (values.every((v) => v === null || typeof v === 'boolean')) return 'boolean';
  if (values.every((v) => v === null || typeof v === 'number')) return 'numeric';
  return 'categorical';
}

/** The value at a dot path, or undefined when a step is missing or not an object. */
export function valueAt(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** §7.8 value extraction: a number (booleans as 1/0) or null when the value does not count. */
export function extract(value: unknown, type: FeedbackValueType): number | null {
  if (value === undefined || value === null) return null;
  if (type === 'categorical') return 1;
  if (type === 'boolean') {
    if (value === true || value === 'true') return 1;
    if (value === false || value === 'false') return 0;
    return null;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

export const DEFAULT_AGGREGATIONS: Record<FeedbackValueType, Aggregation[]> = {
  numeric: ['avg', 'min', 'max'],
  boolean: ['count_true', 'count_false'],
  categorical: ['count'],
};

/** One aggregate over the values; sums, averages, minima and maxima of nothing are null. */
export function aggregate(values: readonly number[], kind: Aggregation): number | null {
  switch (kind) {
    case 'count':
      return values.length;
    case 'count_true':
      return values.filter((v) => v !== 0).length;
    case 'count_false':
      return values.filter((v) => v === 0).length;
    default:
      break;
  }
  if (values.length === 0) return null;
  if (kind === 'min') return Math.min(...values);
  if (kind === 'max') return Math.max(...values);
  const sum = values.reduce((a, b) => a + b, 0);
  return kind === 'sum' ? sum : sum / values.length;
}

export interface FeedbackMetricPlan {
  json_path: string;
  slug: string;
  value_type: FeedbackValueType;
  aggregations: Aggregation[];
  percentiles: number[];
}

/** `{<agg>: v, p<P>: v}` of one metric over its values. */
export function metricSummary(values: number[], plan: FeedbackMetricPlan): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const kind of plan.aggregations) out[kind] = aggregate(values, kind);
  if (plan.percentiles.length > 0) {
    const sorted = [...values].sort((a, b) => a - b);
    for (const p of plan.percentiles) out[`p${percentileLabel(p)}`] = percentile(sorted, p);
  }
  return out;
}
