import { useMemo } from 'react';
import type { CallStats, GroupDimension } from '../../api/dashboard.js';
import { Chart, seriesColor } from '../../ui/chart.js';
import { formatCost, formatInt, formatLatency } from '../../lib/format.js';
import { groupedView, OTHER } from './groups.js';

const DIM_LABEL: Record<GroupDimension, string> = { op: 'Op', status: 'Status', model: 'Model' };

interface Props {
  stats: CallStats;
  dims: GroupDimension[];
  formatX: (v: unknown) => string;
}

/** The dashboard split by one or two dimensions: a table of groups, then one series per group per chart. */
/** The charts of a grouped view, one series per group. */
const CHARTS: ReadonlyArray<{ metric: string; label: string; kind: 'bar' | 'line'; format: (v: number) => string }> = [
  { metric: 'calls', label: 'Calls', kind: 'bar', format: formatInt },
  { metric: 'errors', label: 'Errors', kind: 'bar', format: formatInt },
  { metric: 'p95', label: 'p95 latency', kind: 'line', format: (v) => formatLatency(Math.round(v)) },
  { metric: 'tokens', label: 'Tokens', kind: 'bar', format: formatInt },
  { metric: 'cost', label: 'Cost', kind: 'bar', format: formatCost },
];

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
        {CHARTS.map((c) => (
          <Chart
            key={c.metric}
            title={`${c.label} by ${title.toLowerCase()}`}
            kind={c.kind}
            stacked={c.kind === 'bar'}
            data={view.byTime}
            x="timestamp"
            formatX={formatX}
            formatY={c.format}
            // "Other" sums its groups, which is meaningless for a percentile
            series={seriesOf(c.metric, c.kind === 'line' ? view.series.filter((s) => s !== OTHER) : view.series)}
          />
        ))}
      </div>
    </>
  );
}
