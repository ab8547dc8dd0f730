import { Chart, seriesColor, type Series } from '../../ui/chart.js';
import { scoreBars, scoreHistogram } from '../../lib/eval-compare.js';
import { formatInt } from '../../lib/format.js';
import type { EvalResultsRow, EvalSummary, ScoreDim } from '../../lib/evals.js';

/**
 * (Loaded on its own: it carries the chart library, which the initial bundle leaves out.)
 * Each scorer's aggregate per run as bars (pass rates in %, means as they are), then the
 * distribution of every numeric score over the rows loaded so far.
 */
export default function CompareCharts({
  evals,
  ids,
  labels,
  dims,
  rows,
  total,
}: {
  evals: EvalSummary[];
  ids: string[];
  labels: string[];
  dims: ScoreDim[];
  rows: EvalResultsRow[];
  total: number;
}) {
  const series: Series[] = ids.map((_, i) => ({
    key: `r${i}`,
    label: labels[i] ?? `run ${i + 1}`,
    color: seriesColor(i),
  }));
  const continuous = dims.filter((d) => d.type === 'continuous');
  return (
    <section aria-labelledby="charts-h">
      <h2 id="charts-h">Scores by run</h2>
      <div className="chart-grid">
        {dims.map((d) => (
          <Chart
            key={d.label}
            title={d.type === 'binary' ? `${d.label}: pass rate (%)` : `${d.label}: mean`}
            kind="bar"
            data={[scoreBars(evals, ids, d)]}
            x="dim"
            xLabel="Score"
            formatX={(v) => String(v)}
            formatY={(v) => (d.type === 'binary' ? `${v}%` : Number.isInteger(v) ? String(v) : v.toFixed(3))}
            series={series}
          />
        ))}
        {continuous.map((d) => (
          <Chart
            key={`dist-${d.label}`}
            title={`${d.label}: distribution over ${formatInt(rows.length)} of ${formatInt(total)} rows`}
            kind="bar"
            data={scoreHistogram(rows, ids, d)}
            x="bin"
            xLabel={d.label}
            formatX={(v) => String(v)}
            formatY={(v) => formatInt(v)}
            series={series}
            empty={<p className="muted">No numeric values in the loaded rows.</p>}
          />
        ))}
      </div>
    </section>
  );
}
