import { createRoute } from '@tanstack/react-router';
import { ThreadsPage } from '../features/threads/threads-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export const threadsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/threads',
  validateSearch: (raw: Record<string, unknown>): { thread?: string } => {
    const thread = optionalString(raw.thread);
    return thread ? { thread } : {};
  },
  component: ThreadsPage,
});
