import { lazy } from 'react';
import { createRoute } from '@tanstack/react-router';
import { parseCompareIds } from '../lib/compare-calls.js';
import { rootRoute } from './root.js';

const CompareCallsPage = lazy(() => import('../features/calls/compare-calls-page.js'));

export interface CompareCallsSearch {
  /** Comma-separated call ids, in column order. */
  ids?: string;
  /** Index of the baseline call in `ids` (default 0). */
  base?: number;
  /** Show every path, not only those that differ. */
  all?: boolean;
}

export const compareCallsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/r/compare',
  validateSearch: (raw: Record<string, unknown>): CompareCallsSearch => {
    const ids = parseCompareIds(raw.ids);
    const base = Number(raw.base);
    return {
      ...(ids.length > 0 ? { ids: ids.join(',') } : {}),
      ...(Number.isInteger(base) && base > 0 && base < ids.length ? { base } : {}),
      ...(raw.all === true || raw.all === 'true' ? { all: true } : {}),
    };
  },
  component: CompareCallsPage,
});
