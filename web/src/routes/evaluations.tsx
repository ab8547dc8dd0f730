import { createRoute } from '@tanstack/react-router';
import { EvaluationsPage } from '../features/evals/evaluations-page.js';
import { rootRoute } from './root.js';

export const evaluationsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/evaluations',
  component: EvaluationsPage,
});
