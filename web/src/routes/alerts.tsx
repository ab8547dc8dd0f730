import { createRoute } from '@tanstack/react-router';
import { AlertsPage } from '../features/alerts/alerts-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

/** The project's alerts; `?alert=<id>` opens one alert's history. */
export const alertsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/alerts',
  validateSearch: (raw: Record<string, unknown>): { alert?: string } => {
    const alert = optionalString(raw.alert);
    return alert && alert.length <= 128 ? { alert } : {};
  },
  component: AlertsPage,
});
