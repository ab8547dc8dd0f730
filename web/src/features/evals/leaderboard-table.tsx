import { Link } from '@tanstack/react-router';
import { BOARD_RUNS_LIMIT, useBoardRuns } from '../../api/leaderboards.js';
import { parseRef, plural } from '../../lib/format.js';
import {
  bestValues,
  numericOf,
  boardRows,
  columnLabel,
  formatBoardValue,
  sortRows,
  type BoardView,
} from '../../lib/leaderboards.js';

/** One leaderboard: models ranked by a column, the best of each column marked in words. */
export function LeaderboardTable({
  entity,
  project,
  board,
  by,
  onRank,
}: {
  entity: string;
  project: string;
  board: BoardView;
  by: number | null;
  onRank: (column: number) => void;
}) {
  const runs = useBoardRuns(`${entity}/${project}`, board);
  if (board.columns.length === 0) return <p>This leaderboard has no columns.</p>;
  if (runs.isPending) return <p className="muted">Loading evaluation runs…</p>;
  if (runs.isError) return <p role="alert">Could not load evaluation runs: {runs.error.message}</p>;
  const all = boardRows(board, runs.data);
  const best = bestValues(board, all);
  const rows = sortRows(board, all, by ?? 0);
  return (
    <section aria-labelledby="board-h">
      <h2 id="board-h">
        <span className="mono">{board.name}</span>
      </h2>
      {board.description && <p>{board.description}</p>}
      <p className="muted small">
        {plural(rows.length, 'model')} over {plural(runs.data.length, 'run')}
        {runs.data.length >= BOARD_RUNS_LIMIT ? ' (the newest)' : ''}
      </p>
      {rows.length === 0 ? (
        <p>No finished run of these evaluations has these scores yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="simple-table leaderboard" aria-label={`Leaderboard ${board.name}`}>
            <thead>
              <tr>
                <th scope="col">Rank</th>
                <th scope="col">Model</th>
                {board.columns.map((c, i) => (
                  <th
                    scope="col"
                    key={i}
                    aria-sort={(by ?? 0) === i ? (c.minimize ? 'ascending' : 'descending') : undefined}
                  >
                    <button type="button" className="link-button" onClick={() => onRank(i)}>
                      {columnLabel(c)}
                    </button>
                    <span className="muted small"> {c.minimize ? '(lower is better)' : '(higher is better)'}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, rank) => {
                const model = parseRef(r.modelRef);
                return (
                  <tr key={r.modelRef}>
                    <td>{rank + 1}</td>
                    <th scope="row" className="mono small">
                      {model?.kind === 'object' ? (
                        <Link
                          to="/$entity/$project/weave/objects/$name/versions/$digest"
                          params={{ entity, project, name: model.name, digest: model.digest }}
                          search={{}}
                        >
                          {model.name}:{model.digest.slice(0, 6)}
                        </Link>
                      ) : (
                        (model?.name ?? r.modelRef)
                      )}
                    </th>
                    {r.cells.map((cell, i) => {
                      const isBest = best[i] != null && numericOf(cell?.value) === best[i];
                      return (
                        <td key={i} className={isBest ? 'best' : undefined}>
                          {cell ? (
                            <>
                              <Link
                                to="/$entity/$project/weave/evaluations/compare"
                                params={{ entity, project }}
                                search={{ ids: cell.runId }}
                              >
                                {formatBoardValue(cell.value)}
                              </Link>
                              {isBest && <span className="small"> best</span>}
                              {cell.runs > 1 && <span className="muted small"> · newest of {cell.runs} runs</span>}
                            </>
                          ) : (
                            '—'
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
