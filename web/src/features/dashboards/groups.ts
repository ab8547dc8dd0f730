import type { CallStats, GroupDimension } from '../../api/dashboard.js';

/** Charts draw at most this many groups as series; the rest add up in "Other" (sums only). */
export const MAX_SERIES = 8;
export const OTHER = 'Other';

type Row = Record<string, number | string | null>;

export interface GroupTotal {
  label: string;
  calls: number;
  errors: number;
  tokens: number;
  cost: number;
}

export interface GroupedView {
  /** Every group, most calls first. */
  groups: GroupTotal[];
  /** The groups drawn as series (at most MAX_SERIES), then OTHER when some were folded. */
  series: string[];
  /** One row per bucket: `timestamp`, then `<metric>:<series>` values. */
  byTime: Record<string, unknown>[];
}

/** The label of a grouped row: its values in dimension order, `(none)` for null. */
export const groupLabel = (row: Row, dims: readonly GroupDimension[]): string =>
  dims.map((d) => (row[d] === null || row[d] === undefined ? '(none)' : String(row[d]))).join(' · ');

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/**
 * Folds `/calls/stats` grouped rows into per-group totals and per-bucket series for the charts.
 * Usage rows carry the model too; unless the model is a dimension, their models are summed per group.
 */
export function groupedView(stats: CallStats, dims: readonly GroupDimension[]): GroupedView {
  const totals = new Map<string, GroupTotal>();
  const total = (label: string) => {
    let g = totals.get(label);
    if (!g) totals.set(label, (g = { label, calls: 0, errors: 0, tokens: 0, cost: 0 }));
    return g;
  };
  for (const r of stats.call_buckets) {
    const g = total(groupLabel(r, dims));
    g.calls += num(r.sum_call_count);
    g.errors += num(r.sum_error_count);
  }
  for (const r of stats.usage_buckets) {
    const g = total(groupLabel(r, dims));
    g.tokens += num(r.sum_total_tokens);
    g.cost += num(r.sum_total_cost);
  }
  const groups = [...totals.values()].sort((a, b) => b.calls - a.calls || b.tokens - a.tokens);
  const shown = new Set(groups.slice(0, MAX_SERIES).map((g) => g.label));
  const series = [...shown, ...(groups.length > MAX_SERIES ? [OTHER] : [])];

  const byTime = new Map<string, Record<string, unknown>>();
  const at = (t: string) => {
    let row = byTime.get(t);
    if (!row) byTime.set(t, (row = { timestamp: t }));
    return row;
  };
  const add = (row: Record<string, unknown>, key: string, v: unknown) => {
    row[key] = num(row[key]) + num(v);
  };
  for (const r of stats.call_buckets) {
    const label = groupLabel(r, dims);
    const s = shown.has(label) ? label : OTHER;
    const row = at(String(r.timestamp));
    add(row, `calls:${s}`, r.sum_call_count);
    add(row, `errors:${s}`, r.sum_error_count);
    // percentiles cannot be merged: only the groups drawn get a latency line
    if (shown.has(label) && typeof r.p95_latency_ms === 'number') row[`p95:${label}`] = r.p95_latency_ms;
  }
  for (const r of stats.usage_buckets) {
    const label = groupLabel(r, dims);
    const s = shown.has(label) ? label : OTHER;
    const row = at(String(r.timestamp));
    add(row, `tokens:${s}`, r.sum_total_tokens);
    add(row, `cost:${s}`, r.sum_total_cost);
  }
  return { groups, series, byTime: [...byTime.values()].sort((a, b) => (a.timestamp! < b.timestamp! ? -1 : 1)) };
}
