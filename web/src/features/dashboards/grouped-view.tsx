import { useMemo } from 'react';
import type { CallStats, GroupDimension } from '../../api/dashboard.js';
import { Chart, seriesColor } from '../../components/chart.js';
import { formatCost, formatInt, formatLatency } from '../../lib/format.js';
import { groupedView, OTHER } from './groups.js';

const DIM_LABEL: Record<GroupDimension, string> = { op: 'Op', status: 'Status', model: 'Model' };

interface Props {
  stats: CallStats;
  dims: GroupDimension[];
  formatX: (v: unknown) => string;
}

/** The dashboard split by one or two dimensions: a table of groups, then one series per group per chart. */
export function GroupedDashboard({ stats, dims, formatX }: Props) {
  const view = useMemo(() => groupedView(stats, dims), [stats, dims]);
  const color = (s: string, i: number) => (s === OTHER ? 'var(--muted)' : seriesColor(i));
  const seriesOf = (metric: string, labels = view.series) =>
    labels.map((s, i) => ({ key: `${metric}:${s}`, label: s, color: color(s, i) }));
  const title = dims.map((d) => DIM_LABEL[d]).join(' and ');
  return (
    <>
      <table className="simple-table dashboard-groups" aria-label={`Groups by ${title.toLowerCase()}`}>
        <thead>
          <tr>
            <th scope="col">{dims.map((d) => DIM_LABEL[d]).join(' · ')}</th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Errors
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {view.groups.map((g) => (
            <tr key={g.label}>
              <th scope="row">{g.label}</th>
              <td className="num">{formatInt(g.calls)}</td>
              <td className="num">{formatInt(g.errors)}</td>
              <td className="num">{formatInt(g.tokens)}</td>
              <td className="num">{formatCost(g.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {dims.includes('model') && (
        <p className="muted">A call that used several models counts under each; calls without usage under (none).</p>
      )}
      <div className="chart-grid">
        <Chart
          title={`Calls by ${title.toLowerCase()}`}
          kind="bar"
          stacked
          data={view.byTime}
          x="timestamp"
          formatX={formatX}
          formatY={(v) => formatInt(v)}
          series={seriesOf('calls')}
        />
        <Chart
          title={`Errors by ${title.toLowerCase()}`}
          kind="bar"
          stacked
          data={view.byTime}
          x="timestamp"
          formatX={formatX}
          formatY={(v) => formatInt(v)}
          series={seriesOf('errors')}
        />
        <Chart
          title={`p95 latency by ${title.toLowerCase()}`}
          kind="line"
          data={view.byTime}
          x="timestamp"
          formatX={formatX}
          formatY={(v) => formatLatency(Math.round(v))}
          series={seriesOf(
            'p95',
            view.series.filter((s) => s !== OTHER),
          )}
        />
        <Chart
          title={`Tokens by ${title.toLowerCase()}`}
          kind="bar"
          stacked
          data={view.byTime}
          x="timestamp"
          formatX={formatX}
          formatY={(v) => formatInt(v)}
          series={seriesOf('tokens')}
        />
        <Chart
          title={`Cost by ${title.toLowerCase()}`}
          kind="bar"
          stacked
          data={view.byTime}
          x="timestamp"
          formatX={formatX}
          formatY={(v) => formatCost(v)}
          series={seriesOf('cost')}
        />
      </div>
    </>
  );
}
