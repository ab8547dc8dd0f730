import { createRouter } from '@tanstack/react-router';
import { rootRoute } from './root.js';
import { weaveAliases } from './weave-aliases.js';
import { indexRoute } from './projects.js';
import { tracesRoute } from './traces.js';
import { threadsRoute } from './threads.js';
import { agentsRoute } from './agents.js';
import { agentConversationsRoute } from './agent-conversations.js';
import { agentConversationRoute } from './agent-conversation.js';
import { agentSearchRoute } from './agent-search.js';
import { agentSpansRoute } from './agent-spans.js';
import { objectRoute } from './object-version.js';
import { objectsRoute } from './objects.js';
import { opRoute } from './op-version.js';
import { callRoute } from './call.js';
import { compareCallsRoute } from './compare-calls.js';
import { evaluationsRoute } from './evaluations.js';
import { compareRoute } from './evaluations-compare.js';
import { queuesRoute } from './queues.js';
import { alertsRoute } from './alerts.js';
import { reviewRoute } from './queue-review.js';
import { settingsRoute } from './settings.js';
import { trainingRoute } from './training.js';
import { trainingModelRoute } from './training-model.js';
import { dashboardRoute } from './dashboard.js';
import { playgroundRoute } from './playground.js';
import { monitorsRoute } from './monitors.js';
import { leaderboardsRoute } from './leaderboards.js';

/**
 * Every page's route, one file per URL in this folder; pages read their params and search through
 * `getRouteApi(<path>)`, so no page imports a route (and no import circle runs through here).
 */
const routeTree = rootRoute.addChildren([
  ...weaveAliases,
  indexRoute,
  tracesRoute,
  threadsRoute,
  agentsRoute,
  agentConversationsRoute,
  agentConversationRoute,
  agentSearchRoute,
  agentSpansRoute,
  objectsRoute,
  objectRoute,
  opRoute,
  callRoute,
  compareCallsRoute,
  evaluationsRoute,
  compareRoute,
  queuesRoute,
  reviewRoute,
  alertsRoute,
  playgroundRoute,
  monitorsRoute,
  leaderboardsRoute,
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
