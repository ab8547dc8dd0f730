import { createRoute } from '@tanstack/react-router';
import { TrainingPage } from '../features/training/training-page.js';
import { rootRoute } from './root.js';

export const trainingRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/training',
  component: TrainingPage,
});
