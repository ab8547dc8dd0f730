import { createRoute } from '@tanstack/react-router';
import { ConversationPage } from '../features/agents/conversation-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

interface ConversationSearch {
  page?: number;
  trace?: string;
  span?: string;
  q?: string;
}

export const agentConversationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/agents/conversations/$conversationId',
  validateSearch: (raw: Record<string, unknown>): ConversationSearch => {
    const out: ConversationSearch = {};
    const page = typeof raw.page === 'string' ? Number(raw.page) : raw.page;
    if (typeof page === 'number' && Number.isInteger(page) && page > 0) out.page = page;
    for (const k of ['trace', 'span', 'q'] as const) {
      const v = optionalString(raw[k]);
      if (v) out[k] = v;
    }
    return out;
  },
  component: ConversationPage,
});
