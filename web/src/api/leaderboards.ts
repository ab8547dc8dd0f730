import { useQuery } from '@tanstack/react-query';
import type { Call } from '../lib/call.js';
import { boardView, type BoardView } from '../lib/leaderboards.js';
import { postJsonl } from './client.js';
import { latestOfClass } from './objects.js';

/** Runs a leaderboard reads at most (newest first). */
export const BOARD_RUNS_LIMIT = 2000;

/** The project's leaderboards: the latest version of every object whose base class is `Leaderboard`. */
export function useLeaderboards(projectId: string) {
  return useQuery({
    queryKey: ['objects', projectId, 'leaderboards'] as const,
    queryFn: async ({ signal }) => (await latestOfClass(projectId, 'Leaderboard', signal)).map(boardView),
  });
}

/** The `Evaluation.evaluate` runs of a leaderboard's evaluations (`input_refs`), newest first. */
export function useBoardRuns(projectId: string, board: BoardView | undefined) {
  const refs = [...new Set(board?.columns.map((c) => c.evaluationRef) ?? [])];
  return useQuery({
    queryKey: ['evals', projectId, 'board', refs] as const,
    enabled: refs.length > 0,
    queryFn: ({ signal }) =>
      postJsonl<Call>(
        '/calls/stream_query',
        {
          project_id: projectId,
          filter: { op_names: [`weave:///${projectId}/op/Evaluation.evaluate:*`], input_refs: refs },
          columns: ['id', 'op_name', 'display_name', 'started_at', 'ended_at', 'exception', 'inputs', 'output'],
          sort_by: [{ field: 'started_at', direction: 'desc' }],
          limit: BOARD_RUNS_LIMIT,
        },
        signal,
      ),
  });
}
