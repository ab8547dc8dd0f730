import { createRoute } from '@tanstack/react-router';
import { ObjectsPage } from '../features/objects/objects-page.js';
import { rootRoute } from './root.js';

export const objectsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/objects',
  validateSearch: (raw: Record<string, unknown>): { kind?: 'op' | 'object' | 'dataset' } => {
    const k = raw.kind;
    return k === 'op' || k === 'object' || k === 'dataset' ? { kind: k } : {};
  },
  component: ObjectsPage,
});
