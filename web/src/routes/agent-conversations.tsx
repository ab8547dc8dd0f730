import { createRoute } from '@tanstack/react-router';
import { ConversationsPage } from '../features/agents/conversations-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export const agentConversationsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/agents/conversations',
  validateSearch: (raw: Record<string, unknown>): { agent?: string } => {
    const agent = optionalString(raw.agent);
    return agent ? { agent } : {};
  },
  component: ConversationsPage,
});
