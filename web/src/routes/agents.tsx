import { createRoute } from '@tanstack/react-router';
import { AgentsPage } from '../features/agents/agents-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export const agentsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/agents',
  validateSearch: (raw: Record<string, unknown>): { agent?: string } => {
    const agent = optionalString(raw.agent);
    return agent ? { agent } : {};
  },
  component: AgentsPage,
});
