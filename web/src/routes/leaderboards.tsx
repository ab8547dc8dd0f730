import { createRoute } from '@tanstack/react-router';
import { LeaderboardsPage } from '../features/evals/leaderboards-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export interface LeaderboardsSearch {
  board?: string;
  /** The column the models are ranked by. */
  by?: number;
}

/** Weave `Leaderboard` objects; `?board=<name>` opens one, `&by=<column>` ranks by that column. */
export const leaderboardsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/leaderboards',
  validateSearch: (raw: Record<string, unknown>): LeaderboardsSearch => {
    const board = optionalString(raw.board);
    const by = Number(raw.by);
    return {
      ...(board && board.length <= 128 ? { board } : {}),
      ...(Number.isInteger(by) && by >= 0 && by < 100 ? { by } : {}),
    };
  },
  component: LeaderboardsPage,
});
