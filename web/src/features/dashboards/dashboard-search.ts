import { optionalString } from '../../lib/search.js';

export interface DashboardSearch {
  op?: string;
  /** One or two of op, status, model, comma-separated (`op,status`): the dashboard's grouping. */
  group?: string;
  range?: '24h' | '7d' | '30d';
  /** `YYYY-MM-DD` (UTC), with `to`: an explicit range instead of one relative to now. */
  from?: string;
  to?: string;
}

/** `op`, `op,status` …: one or two distinct dimensions, else nothing (an unknown one is dropped). */
function dashboardGroup(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const dims = v.split(',').filter((d) => d === 'op' || d === 'status' || d === 'model');
  const unique = [...new Set(dims)].slice(0, 2);
  return unique.length > 0 ? unique.join(',') : undefined;
}

const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

/** The dashboard's search parameters from the URL (unknown or malformed ones dropped). */
export function parseDashboardSearch(raw: Record<string, unknown>): DashboardSearch {
  const out: DashboardSearch = {};
  const op = optionalString(raw.op);
  if (op) out.op = op;
  const group = dashboardGroup(raw.group);
  if (group) out.group = group;
  if (raw.range === '24h' || raw.range === '7d' || raw.range === '30d') out.range = raw.range;
  const from = day(raw.from);
  const to = day(raw.to);
  if (from && to && from < to) Object.assign(out, { from, to });
  return out;
}
