import { lazy } from 'react';
import { createRoute } from '@tanstack/react-router';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

// A training model's page carries its metric curves; it loads only when opened.
const ModelPage = lazy(() => import('../features/training/model-page.js'));

export const trainingModelRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/training/$modelId',
  validateSearch: (raw: Record<string, unknown>): { job?: string } => {
    const job = optionalString(raw.job);
    return job && /^[\w-]{1,64}$/.test(job) ? { job } : {};
  },
  component: ModelPage,
});
