import { lazy, Suspense, useCallback, useMemo } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import {
  useEvalCosts,
  useEvalRoots,
  useEvalRows,
  useEvalSummary,
  useEvaluationStatus,
  useResolvedRefs,
} from '../../api/evaluations.js';
import { CopyLinkButton } from '../../ui/copy-link.js';
import { PageHeading } from '../../ui/page-heading.js';
import { StatusBadge } from '../../ui/status-badge.js';
import { callStatus, type Call } from '../../lib/call.js';
import { outputRefsOf, refName, scoreDims, withResolvedOutputs, type EvalSummary } from '../../lib/evals.js';
import { resultsFilter } from '../../lib/eval-compare.js';
import { plural } from '../../lib/format.js';
import { EvalRowsTable } from './eval-rows-table.js';
import { ScoreFilterBar } from './score-filter.js';
import { Leaderboard, runLabel } from './leaderboard.js';
import { Progress } from './run-status.js';
import { RowDetail } from './row-detail.js';

const compareRoute = getRouteApi('/$entity/$project/weave/evaluations/compare');

// the charts carry the chart library: loaded after the leaderboard and rows, not in the initial bundle
const CompareCharts = lazy(() => import('./compare-charts.js'));

/**
 * Two or more evaluation runs side by side: a leaderboard of per-scorer aggregates, then every
 * dataset row with each run's output and scores, differences marked. Runs, row order, ranking and
 * the selected row all live in the URL.
 */
export function ComparePage() {
  const { entity, project } = compareRoute.useParams();
  const search = compareRoute.useSearch();
  const navigate = compareRoute.useNavigate();
  const projectId = `${entity}/${project}`;
  const ids = useMemo(() => (search.ids ? search.ids.split(',') : []), [search.ids]);
  // The order field is checked against the summary's dimensions once it is known; the server refuses a
  // field that is not `scores.…` with a 400, which the page shows.
  const diffField = search.diff?.startsWith('scores.') ? search.diff : null;
  const filter = useMemo(
    () =>
      search.score && search.cond
        ? resultsFilter({
            field: `scores.${search.score}`,
            run: search.in ?? null,
            cond: search.cond,
            value: search.value ?? null,
          })
        : null,
    [search.score, search.cond, search.value, search.in],
  );
  const rows = useEvalRows(projectId, { ids, diffField, filter });
  // with a row filter the rows' summary covers those rows only; the leaderboard and charts keep all of them
  const overall = useEvalSummary(projectId, ids, filter != null);
  const summary = (filter ? overall.data : rows.data?.pages[0]?.summary) ?? undefined;
  const dims = useMemo(() => scoreDims(summary), [summary]);
  const sortable = dims.filter((d) => d.type === 'binary' || d.type === 'continuous');
  const costs = useEvalCosts(projectId, ids, summary != null);
  const roots = useEvalRoots(projectId, ids);
  const rawRows = useMemo(() => rows.data?.pages.flatMap((p) => p.rows) ?? [], [rows.data]);
  const outputRefs = useMemo(() => outputRefsOf(rawRows), [rawRows]);
  const resolved = useResolvedRefs(outputRefs);
  const allRows = useMemo(() => withResolvedOutputs(rawRows, resolved.data), [rawRows, resolved.data]);
  const total = rows.data?.pages[0]?.total_rows ?? 0;
  const byId = new Map((summary?.evaluations ?? []).map((e) => [e.evaluation_call_id, e]));
  const labels = ids.map((id) => {
    const e = byId.get(id);
    return e ? runLabel(e) : id.slice(0, 8);
  });
  const rankBy = dims.find((d) => d.label === search.rank) ?? sortable[0];
  const baseline = search.base ? byId.get(search.base) : undefined;
  const selectedRow = allRows.find((r) => r.row_digest === search.row);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = rows;
  const onNearEnd = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const setSearch = (patch: Partial<typeof search>) =>
    void navigate({ search: (s) => ({ ...s, ...patch }), replace: true });

  return (
    <main className="page compare-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave/evaluations" params={{ entity, project }} className="back-link">
          ← Evaluations
        </Link>
        <PageHeading>{ids.length > 1 ? `Compare ${ids.length} evaluations` : 'Evaluation'}</PageHeading>
        <span className="spacer" />
        <CopyLinkButton />
      </div>
      {ids.length === 0 && (
        <p role="alert">
          No evaluation runs named in the link. Choose runs on the{' '}
          <Link to="/$entity/$project/weave/evaluations" params={{ entity, project }}>
            Evaluations
          </Link>{' '}
          page.
        </p>
      )}
      {ids.length > 0 && rows.isPending && <p className="muted">Loading results…</p>}
      {rows.isError && <p role="alert">Could not load results: {rows.error.message}</p>}
      {summary && (
        <>
          <ul className="run-chips" aria-label="Compared runs">
            {ids.map((id, i) => (
              <RunChip
                key={id}
                projectId={projectId}
                id={id}
                label={labels[i]}
                summary={byId.get(id)}
                root={roots.data?.get(id)}
                rootsLoaded={roots.isSuccess}
              />
            ))}
          </ul>
          <section aria-labelledby="leaderboard-h">
            <div className="section-head">
              <h2 id="leaderboard-h">Leaderboard</h2>
              {ids.length > 1 && (
                <label className="field">
                  Baseline{' '}
                  <select
                    value={baseline?.evaluation_call_id ?? ''}
                    onChange={(e) => setSearch({ base: e.target.value || undefined })}
                  >
                    <option value="">none</option>
                    {ids.map((id, i) => (
                      <option key={id} value={id}>
                        {labels[i]}
                      </option>
                    ))}
                  </select>
                </label>
              )}
            </div>
            {summary.evaluations.length === 0 ? (
              <p className="muted">No results yet for these runs.</p>
            ) : (
              <Leaderboard
                evals={summary.evaluations}
                costs={costs.data}
                dims={dims}
                rankBy={rankBy}
                onRankBy={(rank) => setSearch({ rank })}
                baseline={baseline}
              />
            )}
          </section>
          {summary.evaluations.length > 0 && sortable.length > 0 && (
            <Suspense fallback={<p className="muted">Loading charts…</p>}>
              <CompareCharts
                evals={summary.evaluations}
                ids={ids}
                labels={labels}
                dims={sortable}
                rows={allRows}
                total={total}
              />
            </Suspense>
          )}
          <section aria-labelledby="rows-h" className="rows-section">
            <div className="page-head">
              <h2 id="rows-h">Rows</h2>
              <label className="field">
                Order{' '}
                <select value={diffField ?? ''} onChange={(e) => setSearch({ diff: e.target.value || undefined })}>
                  <option value="">Dataset order</option>
                  {sortable.map((d) => (
                    <option key={d.field} value={d.field}>
                      Largest difference in {d.label} first
                    </option>
                  ))}
                </select>
              </label>
              <ScoreFilterBar search={search} dims={sortable} ids={ids} labels={labels} onChange={setSearch} />
              {filter && (
                <span className="muted" aria-live="polite">
                  {plural(total, 'row')} match
                </span>
              )}
            </div>
            <div className={`rows-layout${selectedRow ? ' with-detail' : ''}`}>
              <EvalRowsTable
                rows={allRows}
                total={total}
                ids={ids}
                labels={labels}
                dims={dims}
                selected={search.row}
                onSelect={(row) => setSearch({ row })}
                onNearEnd={onNearEnd}
                loadingMore={isFetchingNextPage}
              />
              {selectedRow && (
                <RowDetail row={selectedRow} ids={ids} labels={labels} dims={dims} entity={entity} project={project} />
              )}
            </div>
          </section>
        </>
      )}
    </main>
  );
}

function RunChip({
  projectId,
  id,
  label,
  summary,
  root,
  rootsLoaded,
}: {
  projectId: string;
  id: string;
  label: string;
  summary: EvalSummary | undefined;
  root: Call | undefined;
  rootsLoaded: boolean;
}) {
  // Only a run still running needs /evaluations/status, polled for its progress.
  const status = useEvaluationStatus(projectId, id, root != null && root.ended_at == null);
  const s = status.data;
  return (
    <li className="run-chip">
      <strong>{label}</strong>
      <span className="muted small">
        {summary ? `${refName(summary.evaluation_ref)} · ${refName(summary.model_ref)}` : 'no results'}
      </span>
      {s?.code === 'running' && <Progress done={s.completed_rows} total={s.total_rows} label={label} />}
      {s?.code === 'failed' && <span className="error-text small">Failed: {s.error ?? 'unknown error'}</span>}
      {rootsLoaded && !root && <span className="error-text small">No such run in this project</span>}
      {root && root.ended_at != null && <StatusBadge status={callStatus(root)} />}
    </li>
  );
}
