import { useMemo, useState } from 'react';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { EVAL_LIST_LIMIT, useEvaluationRuns } from '../../api/evaluations.js';
import { PageHeading } from '../../ui/page-heading.js';
import { evalKind, summaryLine } from '../../lib/evals.js';
import { listChoices, runEvaluation, runModel, visibleRuns, type EvalListSearch } from '../../lib/eval-list.js';
import { EvalListFilters } from './eval-list-filters.js';
import { formatTime, plural } from '../../lib/format.js';
import { RunStatus } from './run-status.js';

const evaluationsRoute = getRouteApi('/$entity/$project/weave/evaluations');

/** Every evaluation run of the project (client-side, EvaluationLogger, run API, server-side); pick two or more to compare. */
export function EvaluationsPage() {
  const { entity, project } = evaluationsRoute.useParams();
  const projectId = `${entity}/${project}`;
  const runs = useEvaluationRuns(projectId);
  const search = evaluationsRoute.useSearch();
  const navigate = useNavigate();
  const choices = useMemo(() => listChoices(runs.data ?? []), [runs.data]);
  const shown = useMemo(() => visibleRuns(runs.data ?? [], search), [runs.data, search]);
  const navigateHere = evaluationsRoute.useNavigate();
  const setSearch = (patch: Partial<EvalListSearch>) =>
    void navigateHere({ search: (prev: EvalListSearch) => ({ ...prev, ...patch }), replace: true });
  const [selected, setSelected] = useState<string[]>([]);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const compare = () =>
    void navigate({
      to: '/$entity/$project/weave/evaluations/compare',
      params: { entity, project },
      search: { ids: selected.join(',') },
    });

  return (
    <main className="page">
      <div className="page-head">
        <PageHeading>Evaluations</PageHeading>
        {runs.data && (
          <span className="muted">
            {shown.length === runs.data.length
              ? plural(runs.data.length, 'run')
              : `${shown.length} of ${plural(runs.data.length, 'run')}`}
            {runs.data.length >= EVAL_LIST_LIMIT ? ' (newest shown)' : ''}
          </span>
        )}
        <span className="spacer" />
        <Link to="/$entity/$project/weave/leaderboards" params={{ entity, project }} search={{}}>
          Leaderboards
        </Link>
        <button type="button" className="primary" disabled={selected.length < 2} onClick={compare}>
          Compare {selected.length >= 2 ? `${selected.length} runs` : 'runs'}
        </button>
      </div>
      <p className="muted small">Select two or more runs to compare their scores row by row.</p>
      {runs.isPending && <p className="muted">Loading evaluations…</p>}
      {runs.isError && <p role="alert">Could not load evaluations: {runs.error.message}</p>}
      {runs.data && runs.data.length === 0 && (
        <p>No evaluation runs yet. Run a weave Evaluation, an EvaluationLogger or a server-side evaluation.</p>
      )}
      {runs.data && runs.data.length > 0 && <EvalListFilters search={search} choices={choices} onChange={setSearch} />}
      {runs.data && runs.data.length > 0 && shown.length === 0 && <p>No run matches these filters.</p>}
      {shown.length > 0 && (
        <div className="table-scroll">
          <table className="simple-table" aria-label="Evaluation runs">
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">Select</span>
                </th>
                <th scope="col">Run</th>
                <th scope="col">Evaluation</th>
                <th scope="col">Model</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Scores</th>
                <th scope="col">Started (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => {
                const name = c.display_name ?? c.id;
                return (
                  <tr key={c.id} className={selected.includes(c.id) ? 'selected' : undefined}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${name}`}
                        checked={selected.includes(c.id)}
                        onChange={() => toggle(c.id)}
                      />
                    </td>
                    <td>
                      <Link
                        to="/$entity/$project/weave/evaluations/compare"
                        params={{ entity, project }}
                        search={{ ids: c.id }}
                      >
                        {name}
                      </Link>
                    </td>
                    <td className="mono small">{runEvaluation(c)}</td>
                    <td className="mono small">{runModel(c)}</td>
                    <td>{evalKind(c)}</td>
                    <td>
                      <RunStatus projectId={projectId} call={c} />
                    </td>
                    <td className="small">{summaryLine(c.output) || '—'}</td>
                    <td className="small">{formatTime(c.started_at, false)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
