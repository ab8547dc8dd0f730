import { createRoute } from '@tanstack/react-router';
import { ProjectsPage } from '../features/projects/projects-page.js';
import { rootRoute } from './root.js';

export const indexRoute = createRoute({ getParentRoute: () => rootRoute, path: '/', component: ProjectsPage });
