import { Fragment } from 'react';
import { formatCost, formatInt } from '../../lib/format.js';
import { deltaText } from '../../lib/eval-compare.js';
import { formatMetric, metric, refName, statsFor, type EvalSummary, type ScoreDim } from '../../lib/evals.js';

/** Best value of a dimension across runs (higher is better for every score we aggregate). */
function best(evals: EvalSummary[], dim: ScoreDim): number | null {
  const values = evals.map((e) => metric(statsFor(e, dim))).filter((v): v is number => v != null);
  return values.length > 1 ? Math.max(...values) : null;
}

export const runLabel = (e: EvalSummary) => e.display_name ?? refName(e.model_ref);

/**
 * The compared runs ranked by one score dimension, with every dimension's aggregate beside it and
 * the best of each marked in words, not only in colour.
 */
export function Leaderboard({
  evals,
  costs,
  dims,
  rankBy,
  onRankBy,
  baseline,
}: {
  evals: EvalSummary[];
  /** Predict cost per evaluation, once the slower cost query has answered. */
  costs: Map<string, number | null> | undefined;
  dims: ScoreDim[];
  rankBy: ScoreDim | undefined;
  onRankBy: (label: string) => void;
  /** The run the others are measured against: each of their metrics shows its change from it. */
  baseline?: EvalSummary;
}) {
  const ranked = rankBy
    ? [...evals].sort((a, b) => (metric(statsFor(b, rankBy)) ?? -Infinity) - (metric(statsFor(a, rankBy)) ?? -Infinity))
    : evals;
  const bests = new Map(dims.map((d) => [d.label, best(evals, d)]));
  return (
    <div className="table-scroll">
      <table className="simple-table leaderboard" aria-label="Leaderboard">
        <thead>
          <tr>
            <th scope="col" className="num">
              Rank
            </th>
            <th scope="col">Run</th>
            <th scope="col">Model</th>
            {dims.map((d) => (
              <th scope="col" key={d.label} className="num" aria-sort={d === rankBy ? 'descending' : undefined}>
                <button type="button" className="sort-button" onClick={() => onRankBy(d.label)}>
                  {d.label}
                  {d.type === 'binary' ? ' (pass rate)' : d.type === 'continuous' ? ' (mean)' : ''}
                  <span aria-hidden="true">{d === rankBy ? ' ▼' : ''}</span>
                </button>
              </th>
            ))}
            <th scope="col" className="num">
              Trials
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
          {ranked.map((e, i) => (
            <tr key={e.evaluation_call_id}>
              <td className="num">{i + 1}</td>
              <th scope="row">
                {runLabel(e)}
                {e === baseline && <span className="muted small"> (baseline)</span>}
              </th>
              <td className="mono small">{refName(e.model_ref)}</td>
              {dims.map((d) => {
                const v = metric(statsFor(e, d));
                const isBest = v != null && v === bests.get(d.label);
                return (
                  <td key={d.label} className={`num${isBest ? ' best' : ''}`}>
                    <Fragment>
                      {formatMetric(d, v)}
                      {isBest && <span className="best-mark"> ★ best</span>}
                      {baseline && e !== baseline && (
                        <span className="delta small"> {deltaText(d, v, metric(statsFor(baseline, d)))}</span>
                      )}
                    </Fragment>
                  </td>
                );
              })}
              <td className="num">{formatInt(e.trial_count)}</td>
              <td className="num">{e.predict_total_tokens == null ? '—' : formatInt(e.predict_total_tokens)}</td>
              <td className="num">{costs ? formatCost(costs.get(e.evaluation_call_id)) : '…'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
