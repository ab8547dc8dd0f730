import { createRoute } from '@tanstack/react-router';
import { MonitorsPage } from '../features/monitors/monitors-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

/** The project's monitors; `?monitor=<name>` shows that monitor's scored calls. */
export const monitorsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/monitors',
  validateSearch: (raw: Record<string, unknown>): { monitor?: string } => {
    const monitor = optionalString(raw.monitor);
    return monitor && monitor.length <= 128 ? { monitor } : {};
  },
  component: MonitorsPage,
});
