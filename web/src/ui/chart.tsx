import type { ReactNode } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';

/**
 * The one chart wrapper: Recharts with the theme's colours as CSS variables (no injected style
 * sheet), a title, and the data also as a table for screen readers and copying.
 */
export interface Series {
  key: string;
  label: string;
  /** A CSS colour, normally `var(--chart-n)`. */
  color: string;
}

const PALETTE = ['var(--chart-1)', 'var(--chart-2)', 'var(--chart-3)', 'var(--chart-4)', 'var(--chart-5)'];
export const seriesColor = (i: number) => PALETTE[i % PALETTE.length]!;

interface Props {
  title: string;
  data: Record<string, unknown>[];
  x: string;
  series: Series[];
  kind: 'line' | 'bar';
  stacked?: boolean;
  formatX: (v: unknown) => string;
  formatY?: (v: number) => string;
  empty?: ReactNode;
  /** Heading of the x column in the data table. */
  xLabel?: string;
  /**
   * Makes each x value lead somewhere: a click on the plot picks the x under the pointer (the one the
   * tooltip shows), and every row of the data table gets a cell from `cell`, the keyboard's way there.
   */
  pick?: { label: string; onPick: (x: unknown) => void; cell: (x: unknown) => ReactNode };
}

/** How many rows of `data` hold a number under `key`. */
function pointCount(data: Record<string, unknown>[], key: string): number {
  let n = 0;
  for (const row of data) if (typeof row[key] === 'number' && Number.isFinite(row[key])) n += 1;
  return n;
}

export function Chart({
  title,
  data,
  x,
  series,
  kind,
  stacked,
  formatX,
  formatY = (v) => String(v),
  empty,
  xLabel = 'Time',
  pick,
}: Props) {
  const axisStyle = { fill: 'var(--muted)', fontSize: 12 };
  const common = (
    <>
      <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
      <XAxis dataKey={x} tickFormatter={formatX} tick={axisStyle} stroke="var(--border)" minTickGap={24} />
      <YAxis tickFormatter={formatY} tick={axisStyle} stroke="var(--border)" width={64} />
      <Tooltip
        labelFormatter={formatX}
        formatter={(v) => (typeof v === 'number' ? formatY(v) : String(v))}
        contentStyle={{ background: 'var(--bg)', border: '1px solid var(--border)', color: 'var(--fg)' }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
    </>
  );
  // activeIndex is the hovered point's index in `data` (a string in some Recharts states)
  const onClick = pick
    ? (state: { activeIndex?: number | string | null }) => {
        const row = state.activeIndex == null ? undefined : data[Number(state.activeIndex)];
        if (row) pick.onPick(row[x]);
      }
    : undefined;
  return (
    <figure className={pick ? 'chart chart-pickable' : 'chart'}>
      <figcaption>{title}</figcaption>
      {data.length === 0 ? (
        (empty ?? <p className="muted">No data in this range.</p>)
      ) : (
        <div className="chart-box">
          <ResponsiveContainer width="100%" height={220}>
            {kind === 'line' ? (
              <LineChart data={data} accessibilityLayer={false} onClick={onClick}>
                {common}
                {series.map((s) => (
                  <Line
                    key={s.key}
                    dataKey={s.key}
                    name={s.label}
                    stroke={s.color}
                    // a series with one value has no segment to draw: its point is shown instead
                    dot={pointCount(data, s.key) === 1 ? { r: 3, fill: s.color } : false}
                    isAnimationActive={false}
                    connectNulls
                  />
                ))}
              </LineChart>
            ) : (
              <BarChart data={data} accessibilityLayer={false} onClick={onClick}>
                {common}
                {series.map((s) => (
                  <Bar
                    key={s.key}
                    dataKey={s.key}
                    name={s.label}
                    fill={s.color}
                    stackId={stacked ? 'a' : undefined}
                    isAnimationActive={false}
                  />
                ))}
              </BarChart>
            )}
          </ResponsiveContainer>
        </div>
      )}
      {data.length > 0 && (
        <details className="chart-data">
          <summary>Data</summary>
          <table className="simple-table" aria-label={`${title} data`}>
            <thead>
              <tr>
                <th scope="col">{xLabel}</th>
                {series.map((s) => (
                  <th scope="col" key={s.key} className="num">
                    {s.label}
                  </th>
                ))}
                {pick && <th scope="col">{pick.label}</th>}
              </tr>
            </thead>
            <tbody>
              {data.map((d, i) => (
                <tr key={i}>
                  <th scope="row">{formatX(d[x])}</th>
                  {series.map((s) => (
                    <td key={s.key} className="num">
                      {typeof d[s.key] === 'number' ? formatY(d[s.key] as number) : '—'}
                    </td>
                  ))}
                  {pick && <td>{pick.cell(d[x])}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}
