import { createRootRoute } from '@tanstack/react-router';
import { AppShell } from '../features/auth/app-shell.js';
import { NotFound } from '../features/auth/not-found.js';

/** The app shell every page renders in (routes/router.tsx builds the tree). */
export const rootRoute = createRootRoute({ component: AppShell, notFoundComponent: NotFound });
