import { createRoute } from '@tanstack/react-router';
import { AgentSearchPage } from '../features/agents/search-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export const agentSearchRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/agents/search',
  validateSearch: (raw: Record<string, unknown>): { q?: string } => {
    const q = optionalString(raw.q);
    return q ? { q } : {};
  },
  component: AgentSearchPage,
});
