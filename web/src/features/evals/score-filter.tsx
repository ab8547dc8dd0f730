import type { ScoreDim } from '../../lib/evals.js';
import { FILTER_CONDITIONS, type ScoreFilter } from '../../lib/eval-compare.js';
import type { CompareSearch } from './compare-search.js';

/** "Rows where <score> <is true | is false | is above n | is below n> in <any run | a run>", in the URL. */
export function ScoreFilterBar({
  search,
  dims,
  ids,
  labels,
  onChange,
}: {
  search: CompareSearch;
  dims: ScoreDim[];
  ids: string[];
  labels: string[];
  onChange: (patch: Partial<CompareSearch>) => void;
}) {
  const dim = dims.find((d) => d.label === search.score);
  const conds = (dim?.type === 'binary' ? ['pass', 'fail'] : ['gt', 'lt']) as ScoreFilter['cond'][];
  const cond = search.cond && conds.includes(search.cond) ? search.cond : conds[0]!;
  return (
    <div className="score-filter" role="group" aria-label="Filter rows by score">
      <label>
        Rows where{' '}
        <select
          aria-label="Score to filter by"
          value={dim?.label ?? ''}
          onChange={(e) => {
            const next = dims.find((d) => d.label === e.target.value);
            onChange({
              score: next?.label,
              cond: next ? (next.type === 'binary' ? 'fail' : 'lt') : undefined,
              value: undefined,
            });
          }}
        >
          <option value="">any score (no filter)</option>
          {dims.map((d) => (
            <option key={d.label}>{d.label}</option>
          ))}
        </select>
      </label>
      {dim && (
        <>
          <select
            aria-label="Condition"
            value={cond}
            onChange={(e) => onChange({ cond: e.target.value as ScoreFilter['cond'] })}
          >
            {conds.map((c) => (
              <option key={c} value={c}>
                {FILTER_CONDITIONS[c]}
              </option>
            ))}
          </select>
          {(cond === 'gt' || cond === 'lt') && (
            <input
              aria-label="Value"
              type="number"
              step="any"
              value={search.value ?? ''}
              onChange={(e) => onChange({ value: e.target.value === '' ? undefined : Number(e.target.value) })}
            />
          )}
          <label>
            in{' '}
            <select
              aria-label="In run"
              value={search.in ?? ''}
              onChange={(e) => onChange({ in: e.target.value || undefined })}
            >
              <option value="">any run</option>
              {ids.map((id, i) => (
                <option key={id} value={id}>
                  {labels[i]}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            onClick={() => onChange({ score: undefined, cond: undefined, value: undefined, in: undefined })}
          >
            Clear filter
          </button>
        </>
      )}
    </div>
  );
}
