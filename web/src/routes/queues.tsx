import { createRoute } from '@tanstack/react-router';
import { QueuesPage } from '../features/queues/queues-page.js';
import { rootRoute } from './root.js';

export const queuesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/queues',
  component: QueuesPage,
});
