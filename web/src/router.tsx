import { lazy } from 'react';
import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { AppShell } from './features/auth/app-shell.js';
import { ProjectsPage } from './features/projects/projects-page.js';
import { TracesPage } from './features/calls/traces-page.js';
import { ThreadsPage } from './features/threads/threads-page.js';
import { ObjectVersionPage } from './features/objects/object-version-page.js';
import { ObjectsPage } from './features/objects/objects-page.js';
import { parseTracesSearch } from './lib/query.js';
import { NotFound } from './features/auth/not-found.js';
import { EvaluationsPage } from './features/evals/evaluations-page.js';
import { ComparePage } from './features/evals/compare-page.js';
import { QueuesPage } from './features/queues/queues-page.js';
import { ReviewPage } from './features/queues/review-page.js';
import { SettingsPage } from './features/settings/settings-page.js';
import { TrainingPage } from './features/training/training-page.js';

const TracePage = lazy(() => import('./features/trace/trace-page.js'));
// The dashboard carries the chart library; it loads only when opened.
const DashboardPage = lazy(() => import('./features/dashboards/dashboard-page.js'));
// So does a training model's page (its metric curves).
const ModelPage = lazy(() => import('./features/training/model-page.js'));

const rootRoute = createRootRoute({ component: AppShell, notFoundComponent: NotFound });

const indexRoute = createRoute({ getParentRoute: () => rootRoute, path: '/', component: ProjectsPage });

export const tracesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave',
  validateSearch: (raw: Record<string, unknown>) => parseTracesSearch(raw),
  component: TracesPage,
});

const optionalString = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export const threadsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/threads',
  validateSearch: (raw: Record<string, unknown>): { thread?: string } => {
    const thread = optionalString(raw.thread);
    return thread ? { thread } : {};
  },
  component: ThreadsPage,
});

export const objectRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/objects/$name/versions/$digest',
  validateSearch: (raw: Record<string, unknown>): { diff?: string } => {
    const diff = optionalString(raw.diff);
    return diff ? { diff } : {};
  },
  component: () => <ObjectVersionPage kind="object" />,
});

export const objectsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/objects',
  validateSearch: (raw: Record<string, unknown>): { kind?: 'op' | 'object' | 'dataset' } => {
    const k = raw.kind;
    return k === 'op' || k === 'object' || k === 'dataset' ? { kind: k } : {};
  },
  component: ObjectsPage,
});

export const opRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/ops/$name/versions/$digest',
  validateSearch: (raw: Record<string, unknown>): { diff?: string } => {
    const diff = optionalString(raw.diff);
    return diff ? { diff } : {};
  },
  component: () => <ObjectVersionPage kind="op" />,
});

export const callRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/r/call/$callId',
  validateSearch: (raw: Record<string, unknown>): { sel?: string } => {
    const sel = optionalString(raw.sel);
    return sel ? { sel } : {};
  },
  component: TracePage,
});

export const evaluationsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/evaluations',
  component: EvaluationsPage,
});

export interface CompareSearch {
  /** Evaluation root call ids, comma-separated (the URL stays readable). */
  ids: string;
  /** `scores.…` field: rows with the largest difference in it first. */
  diff?: string;
  /** Score dimension the leaderboard ranks by. */
  rank?: string;
  /** Selected row digest. */
  row?: string;
}

/** At most this many runs side by side; more are dropped from the URL. */
export const MAX_COMPARED = 8;

export const compareRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/evaluations/compare',
  validateSearch: (raw: Record<string, unknown>): CompareSearch => {
    const list = Array.isArray(raw.ids) ? raw.ids.join(',') : String(raw.ids ?? '');
    const ids = [
      ...new Set(
        list
          .split(',')
          .map((s) => s.trim())
          .filter((s) => /^[\w-]{1,64}$/.test(s)),
      ),
    ].slice(0, MAX_COMPARED);
    const out: CompareSearch = { ids: ids.join(',') };
    for (const k of ['diff', 'rank', 'row'] as const) {
      const v = optionalString(raw[k]);
      if (v) out[k] = v;
    }
    return out;
  },
  component: ComparePage,
});

export const queuesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/queues',
  component: QueuesPage,
});

export const reviewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/queues/$queueId',
  validateSearch: (raw: Record<string, unknown>): { i?: number } => {
    const i = Number(raw.i);
    return Number.isInteger(i) && i >= 0 ? { i } : {};
  },
  component: ReviewPage,
});

export const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/settings',
  component: SettingsPage,
});

export const trainingRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/training',
  component: TrainingPage,
});

export const trainingModelRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/training/$modelId',
  validateSearch: (raw: Record<string, unknown>): { job?: string } => {
    const job = optionalString(raw.job);
    return job && /^[\w-]{1,64}$/.test(job) ? { job } : {};
  },
  component: ModelPage,
});

export interface DashboardSearch {
  op?: string;
  /** One or two of op, status, model, comma-separated (`op,status`): the dashboard's grouping. */
  group?: string;
  range?: '24h' | '7d' | '30d';
  /** `YYYY-MM-DD` (UTC), with `to`: an explicit range instead of one relative to now. */
  from?: string;
  to?: string;
}

/** `op`, `op,status` …: one or two distinct dimensions, else nothing (an unknown one is dropped). */
function dashboardGroup(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const dims = v.split(',').filter((d) => d === 'op' || d === 'status' || d === 'model');
  const unique = [...new Set(dims)].slice(0, 2);
  return unique.length > 0 ? unique.join(',') : undefined;
}

const day = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

export const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/dashboard',
  validateSearch: (raw: Record<string, unknown>): DashboardSearch => {
    const out: DashboardSearch = {};
    const op = optionalString(raw.op);
    if (op) out.op = op;
    const group = dashboardGroup(raw.group);
    if (group) out.group = group;
    if (raw.range === '24h' || raw.range === '7d' || raw.range === '30d') out.range = raw.range;
    const from = day(raw.from);
    const to = day(raw.to);
    if (from && to && from < to) Object.assign(out, { from, to });
    return out;
  },
  component: DashboardPage,
});

const routeTree = rootRoute.addChildren([
  indexRoute,
  tracesRoute,
  threadsRoute,
  objectsRoute,
  objectRoute,
  opRoute,
  callRoute,
  evaluationsRoute,
  compareRoute,
  queuesRoute,
  reviewRoute,
  settingsRoute,
  dashboardRoute,
  trainingRoute,
  trainingModelRoute,
]);

export const router = createRouter({ routeTree, defaultPreload: false, scrollRestoration: false });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
