import { createRoute } from '@tanstack/react-router';
import { ObjectVersionPage } from '../features/objects/object-version-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

export const objectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/objects/$name/versions/$digest',
  validateSearch: (raw: Record<string, unknown>): { diff?: string } => {
    const diff = optionalString(raw.diff);
    return diff ? { diff } : {};
  },
  component: () => <ObjectVersionPage kind="object" />,
});
