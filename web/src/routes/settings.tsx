import { createRoute } from '@tanstack/react-router';
import { SettingsPage } from '../features/settings/settings-page.js';
import { rootRoute } from './root.js';

export const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/settings',
  component: SettingsPage,
});
