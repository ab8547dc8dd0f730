import { createRoute } from '@tanstack/react-router';
import { ObjectsPage } from '../features/objects/objects-page.js';
import { isObjectKind, type ObjectKind } from '../lib/object-kinds.js';
import { rootRoute } from './root.js';

export const objectsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/objects',
  validateSearch: (raw: Record<string, unknown>): { kind?: ObjectKind } =>
    isObjectKind(raw.kind) ? { kind: raw.kind } : {},
  component: ObjectsPage,
});
