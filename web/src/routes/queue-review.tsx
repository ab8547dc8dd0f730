import { createRoute } from '@tanstack/react-router';
import { ReviewPage } from '../features/queues/review-page.js';
import { rootRoute } from './root.js';

export const reviewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/queues/$queueId',
  validateSearch: (raw: Record<string, unknown>): { i?: number } => {
    const i = Number(raw.i);
    return Number.isInteger(i) && i >= 0 ? { i } : {};
  },
  component: ReviewPage,
});
