import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useLeaderboards } from '../../api/leaderboards.js';
import { PageHeading } from '../../ui/page-heading.js';
import { LeaderboardTable } from './leaderboard-table.js';

const leaderboardsRoute = getRouteApi('/$entity/$project/weave/leaderboards');

/**
 * Weave `Leaderboard` objects (what `weave.publish(Leaderboard(...))` writes): pick one to rank the
 * models of its evaluations, a column per (evaluation, scorer, metric).
 */
export function LeaderboardsPage() {
  const { entity, project } = leaderboardsRoute.useParams();
  const search = leaderboardsRoute.useSearch();
  const navigate = useNavigate();
  const projectId = `${entity}/${project}`;
  const boards = useLeaderboards(projectId);
  const selected = boards.data?.find((b) => b.name === (search.board ?? boards.data[0]?.name));
  return (
    <main className="page leaderboards-page">
      <div className="page-head">
        <Link to="/$entity/$project/weave/evaluations" params={{ entity, project }} className="back-link">
          ← Evaluations
        </Link>
        <PageHeading>Leaderboards</PageHeading>
        {boards.data && boards.data.length > 1 && (
          <label>
            Leaderboard{' '}
            <select
              aria-label="Leaderboard"
              value={selected?.name ?? ''}
              onChange={(e) =>
                void navigate({
                  to: '/$entity/$project/weave/leaderboards',
                  params: { entity, project },
                  search: { board: e.target.value },
                })
              }
            >
              {boards.data.map((b) => (
                <option key={b.name}>{b.name}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <p className="muted small">
        A leaderboard ranks models by the summaries of their evaluation runs: a column per evaluation, scorer and
        metric, each the newest run’s value. Publish one from Python with{' '}
        <code>weave.publish(Leaderboard(columns=[…]))</code>.
      </p>
      {boards.isPending && <p className="muted">Loading leaderboards…</p>}
      {boards.isError && <p role="alert">Could not load leaderboards: {boards.error.message}</p>}
      {boards.data?.length === 0 && <p>No leaderboards in this project yet.</p>}
      {selected && (
        <LeaderboardTable
          entity={entity}
          project={project}
          board={selected}
          by={search.by ?? null}
          onRank={(by) =>
            void navigate({
              to: '/$entity/$project/weave/leaderboards',
              params: { entity, project },
              search: { board: selected.name, by },
            })
          }
        />
      )}
    </main>
  );
}
