import { EVAL_KINDS, RUN_STATES, type EvalListSearch } from '../../lib/eval-list.js';

/** The evaluations list's filters and order; every change goes to the URL. */
export function EvalListFilters({
  search,
  choices,
  onChange,
}: {
  search: EvalListSearch;
  choices: { evaluations: string[]; models: string[]; metrics: string[] };
  onChange: (patch: Partial<EvalListSearch>) => void;
}) {
  const pick = (list: readonly string[], value: string | undefined, label: string, key: keyof EvalListSearch) => (
    <label>
      {label}{' '}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange({ [key]: e.target.value || undefined })}>
        <option value="">any</option>
        {list.map((v) => (
          <option key={v}>{v}</option>
        ))}
      </select>
    </label>
  );
  const sort = search.sort ?? 'started';
  const descending = (search.dir ?? (sort === 'started' || sort.startsWith('metric:') ? 'desc' : 'asc')) === 'desc';
  return (
    <div className="filter-bar eval-filters" role="search" aria-label="Filter evaluation runs">
      <label>
        Search{' '}
        <input
          aria-label="Search"
          type="search"
          value={search.q ?? ''}
          placeholder="run, evaluation or model"
          onChange={(e) => onChange({ q: e.target.value || undefined })}
        />
      </label>
      {pick(choices.evaluations, search.evaluation, 'Evaluation', 'evaluation')}
      {pick(choices.models, search.model, 'Model', 'model')}
      {pick(EVAL_KINDS, search.kind, 'Kind', 'kind')}
      {pick(RUN_STATES, search.status, 'Status', 'status')}
      <label>
        Sort by{' '}
        <select aria-label="Sort by" value={sort} onChange={(e) => onChange({ sort: e.target.value, dir: undefined })}>
          <option value="started">Started</option>
          <option value="run">Run</option>
          <option value="evaluation">Evaluation</option>
          <option value="model">Model</option>
          {choices.metrics.map((m) => (
            <option key={m} value={`metric:${m}`}>
              Score: {m}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => onChange({ dir: descending ? 'asc' : 'desc' })}>
        {descending ? '↓ Descending' : '↑ Ascending'}
      </button>
    </div>
  );
}
