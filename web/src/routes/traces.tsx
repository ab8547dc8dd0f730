import { createRoute } from '@tanstack/react-router';
import { TracesPage } from '../features/calls/traces-page.js';
import { parseTracesSearch } from '../lib/query.js';
import { rootRoute } from './root.js';

export const tracesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave',
  validateSearch: (raw: Record<string, unknown>) => parseTracesSearch(raw),
  component: TracesPage,
});
