import { CallStatsReq, CallStatsRes } from '../schemas/calls-stats.js';
import { CallsUsageReq, CallsUsageRes, TraceUsageReq, TraceUsageRes } from '../schemas/calls-usage.js';
import { ThreadsQueryReq } from '../schemas/threads.js';
import type { Services } from '../services/index.js';
import { sendJsonl } from './jsonl.js';
import { jsonPost, type RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** Call statistics, usage roll-ups and threads (docs/spec/calls.md §4.9–4.12). */
export default async function callsAnalyticsRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callStats, callUsage, threads } = services;

  const post = jsonPost(app, ['Calls']);
  post('/calls/stats', { summary: 'Call Stats', body: CallStatsReq, ok: CallStatsRes }, (caller, body) =>
    callStats.callStats(caller, body),
  );
  post('/calls/usage', { summary: 'Calls Usage', body: CallsUsageReq, ok: CallsUsageRes }, (caller, body) =>
    callUsage.callsUsage(caller, body),
  );
  post('/trace/usage', { summary: 'Trace Usage', body: TraceUsageReq, ok: TraceUsageRes }, (caller, body) =>
    callUsage.traceUsage(caller, body),
  );

  app.post(
    '/threads/stream_query',
    {
      schema: {
        tags: ['Threads'],
        summary: 'Threads Query Stream',
        body: ThreadsQueryReq,
        produces: ['application/jsonl'],
      },
    },
    async (request, reply) => sendJsonl(reply, await threads.threadsQueryStream(request.caller, request.body)),
  );
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const callsAnalyticsArea = routeArea('calls-analytics', callsAnalyticsRoutes, {
  'POST /calls/stats': 'read',
  'POST /calls/usage': 'read',
  'POST /trace/usage': 'read',
  'POST /threads/stream_query': 'read',
});
