import { lazy } from 'react';
import { createRoute } from '@tanstack/react-router';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

const TracePage = lazy(() => import('../features/trace/trace-page.js'));

export const callRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/r/call/$callId',
  validateSearch: (raw: Record<string, unknown>): { sel?: string; tab?: 'use' } => {
    const sel = optionalString(raw.sel);
    return { ...(sel ? { sel } : {}), ...(raw.tab === 'use' ? { tab: 'use' as const } : {}) };
  },
  component: TracePage,
});
