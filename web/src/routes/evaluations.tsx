import { createRoute } from '@tanstack/react-router';
import { EvaluationsPage } from '../features/evals/evaluations-page.js';
import { parseEvalListSearch, type EvalListSearch } from '../lib/eval-list.js';
import { rootRoute } from './root.js';

/** The evaluation runs; the filters and order are in the search (web/src/lib/eval-list.ts). */
export const evaluationsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/evaluations',
  validateSearch: (raw: Record<string, unknown>): EvalListSearch => parseEvalListSearch(raw),
  component: EvaluationsPage,
});
