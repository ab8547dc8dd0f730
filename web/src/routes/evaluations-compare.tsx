import { createRoute } from '@tanstack/react-router';
import { ComparePage } from '../features/evals/compare-page.js';
import { parseCompareSearch } from '../features/evals/compare-search.js';
import { rootRoute } from './root.js';

export const compareRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/evaluations/compare',
  validateSearch: parseCompareSearch,
  component: ComparePage,
});
