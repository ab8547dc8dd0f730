import { useMemo, useState } from 'react';
import { getRouteApi } from '@tanstack/react-router';
import { GROUP_DIMENSIONS, useCallStats, type GroupDimension } from '../../api/dashboard.js';
import { useOpNames } from '../../api/objects.js';
import { Chart, seriesColor } from '../../ui/chart.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { PageHeading } from '../../ui/page-heading.js';
import { formatCost, formatInt, formatLatency } from '../../lib/format.js';
import type { DashboardSearch } from './dashboard-search.js';
import { GroupedDashboard } from './grouped-view.js';

const dashboardRoute = getRouteApi('/$entity/$project/weave/dashboard');

const RANGES: Record<NonNullable<DashboardSearch['range']>, number> = { '24h': 1, '7d': 7, '30d': 30 };
const DAY = 86_400_000;

/** Bucket width for a span: hourly up to two days, six-hourly up to two weeks, else daily. */
function granularityFor(spanMs: number): number {
  if (spanMs <= 2 * DAY) return 3600;
  if (spanMs <= 14 * DAY) return 6 * 3600;
  return 86_400;
}

const DIM_NAMES: Record<GroupDimension, string> = { op: 'Op', status: 'Status', model: 'Model' };

const timeLabel = (granularity: number) => (v: unknown) => {
  const d = new Date(String(v));
  if (Number.isNaN(d.getTime())) return String(v);
  const iso = d.toISOString();
  return granularity >= 86_400 ? iso.slice(5, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
};

/** Calls, errors, latency percentiles, tokens and cost over time, for one op or all, per model. */
export default function DashboardPage() {
  const { entity, project } = dashboardRoute.useParams();
  const search = dashboardRoute.useSearch();
  const navigate = dashboardRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const ops = useOpNames(projectId);
  const [opText, setOpText] = useState(search.op ?? '');
  // explicit from/to (days, UTC) win over a range relative to now; the view is in the URL either way
  const [start, end] = useMemo(() => {
    if (search.from && search.to) return [`${search.from}T00:00:00Z`, `${search.to}T00:00:00Z`];
    const now = Date.now();
    const hour = Math.ceil(now / 3_600_000) * 3_600_000;
    return [new Date(hour - RANGES[search.range ?? '7d'] * DAY).toISOString(), new Date(hour).toISOString()];
  }, [search.from, search.to, search.range]);
  const granularity = granularityFor(Date.parse(end) - Date.parse(start));
  const dims = useMemo(() => (search.group ? (search.group.split(',') as GroupDimension[]) : []), [search.group]);
  const stats = useCallStats(projectId, { start, end, granularity, op: search.op ?? null, groupBy: dims });
  const fmt = timeLabel(granularity);

  const calls = stats.data?.call_buckets ?? [];
  const models = useMemo(
    () => [...new Set((stats.data?.usage_buckets ?? []).map((b) => String(b.model)))].sort(),
    [stats.data],
  );
  const usage = useMemo(() => {
    const byTime = new Map<string, Record<string, unknown>>();
    for (const b of stats.data?.usage_buckets ?? []) {
      const t = String(b.timestamp);
      const row = byTime.get(t) ?? { timestamp: t };
      row[`tokens:${b.model}`] = b.sum_total_tokens ?? 0;
      row[`cost:${b.model}`] = b.sum_total_cost ?? 0;
      byTime.set(t, row);
    }
    return [...byTime.values()];
  }, [stats.data]);
  const totals = useMemo(() => {
    const sum = (rows: Record<string, unknown>[], k: (r: Record<string, unknown>) => unknown) =>
      rows.reduce((n, r) => n + (typeof k(r) === 'number' ? (k(r) as number) : 0), 0);
    return {
      calls: sum(calls, (r) => r.sum_call_count),
      errors: sum(calls, (r) => r.sum_error_count),
      tokens: sum(stats.data?.usage_buckets ?? [], (r) => r.sum_total_tokens),
      cost: sum(stats.data?.usage_buckets ?? [], (r) => r.sum_total_cost),
    };
  }, [calls, stats.data]);
  const set = (patch: Partial<DashboardSearch>) => void navigate({ search: (s) => ({ ...s, ...patch }) });
  const setGroup = (first: string, second: string) => {
    const next = [first, second].filter((d, i, all) => d !== '' && all.indexOf(d) === i && (i === 0 || all[0] !== ''));
    set({ group: next.length > 0 ? next.join(',') : undefined });
  };

  return (
    <main className="page dashboard-page">
      <div className="page-head">
        <PageHeading>Dashboard</PageHeading>
        <form
          className="field"
          onSubmit={(e) => {
            e.preventDefault();
            set({ op: opText.trim() || undefined });
          }}
        >
          <label htmlFor="dash-op">Op</label>
          <input
            id="dash-op"
            list="dash-ops"
            value={opText}
            placeholder="All ops"
            onChange={(e) => setOpText(e.target.value)}
            onBlur={() => set({ op: opText.trim() || undefined })}
          />
          <datalist id="dash-ops">
            {(ops.data ?? []).map((o) => (
              <option key={o} value={o} />
            ))}
          </datalist>
        </form>
        <label className="field">
          Range{' '}
          <select
            value={search.from && search.to ? 'custom' : (search.range ?? '7d')}
            onChange={(e) =>
              e.target.value !== 'custom' &&
              set({ range: e.target.value as DashboardSearch['range'], from: undefined, to: undefined })
            }
          >
            <option value="24h">Last 24 hours</option>
            <option value="7d">Last 7 days</option>
            <option value="30d">Last 30 days</option>
            {search.from && search.to && (
              <option value="custom">
                {search.from} to {search.to}
              </option>
            )}
          </select>
        </label>
        <div className="field">
          <label htmlFor="dash-group">Group by</label>
          <select id="dash-group" value={dims[0] ?? ''} onChange={(e) => setGroup(e.target.value, dims[1] ?? '')}>
            <option value="">Nothing</option>
            {GROUP_DIMENSIONS.map((d) => (
              <option key={d} value={d}>
                {DIM_NAMES[d]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="dash-group2">then by</label>
          <select
            id="dash-group2"
            value={dims[1] ?? ''}
            disabled={dims.length === 0}
            onChange={(e) => setGroup(dims[0] ?? '', e.target.value)}
          >
            <option value="">Nothing</option>
            {GROUP_DIMENSIONS.filter((d) => d !== dims[0]).map((d) => (
              <option key={d} value={d}>
                {DIM_NAMES[d]}
              </option>
            ))}
          </select>
        </div>
        <span className="spacer" />
        <CopyLinkButton />
      </div>
      {stats.isError && <p role="alert">Could not load statistics: {stats.error.message}</p>}
      {stats.isPending && <p className="muted">Loading…</p>}
      {stats.data && (
        <>
          <dl className="totals" aria-label="Totals in the range">
            <div>
              <dt>Calls</dt>
              <dd>{formatInt(totals.calls)}</dd>
            </div>
            <div>
              <dt>Errors</dt>
              <dd>{formatInt(totals.errors)}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{formatInt(totals.tokens)}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd>{formatCost(totals.cost)}</dd>
            </div>
          </dl>
          {dims.length > 0 ? (
            <GroupedDashboard stats={stats.data} dims={dims} formatX={fmt} />
          ) : (
            <div className="chart-grid">
              <Chart
                title="Calls and errors"
                kind="bar"
                data={calls}
                x="timestamp"
                formatX={fmt}
                formatY={(v) => formatInt(v)}
                series={[
                  { key: 'sum_call_count', label: 'Calls', color: seriesColor(0) },
                  { key: 'sum_error_count', label: 'Errors', color: 'var(--err)' },
                ]}
              />
              <Chart
                title="Latency percentiles"
                kind="line"
                data={calls}
                x="timestamp"
                formatX={fmt}
                formatY={(v) => formatLatency(Math.round(v))}
                series={[
                  { key: 'p50_latency_ms', label: 'p50', color: seriesColor(0) },
                  { key: 'p95_latency_ms', label: 'p95', color: seriesColor(1) },
                  { key: 'p99_latency_ms', label: 'p99', color: seriesColor(2) },
                ]}
              />
              <Chart
                title="Tokens by model"
                kind="bar"
                stacked
                data={usage}
                x="timestamp"
                formatX={fmt}
                formatY={(v) => formatInt(v)}
                series={models.map((m, i) => ({ key: `tokens:${m}`, label: m, color: seriesColor(i) }))}
              />
              <Chart
                title="Cost by model"
                kind="bar"
                stacked
                data={usage}
                x="timestamp"
                formatX={fmt}
                formatY={(v) => formatCost(v)}
                series={models.map((m, i) => ({ key: `cost:${m}`, label: m, color: seriesColor(i) }))}
              />
            </div>
          )}
        </>
      )}
    </main>
  );
}
