import { lazy } from 'react';
import { createRoute } from '@tanstack/react-router';
import { parseDashboardSearch } from '../features/dashboards/dashboard-search.js';
import { rootRoute } from './root.js';

// The dashboard carries the chart library; it loads only when opened.
const DashboardPage = lazy(() => import('../features/dashboards/dashboard-page.js'));

export const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/dashboard',
  validateSearch: parseDashboardSearch,
  component: DashboardPage,
});
