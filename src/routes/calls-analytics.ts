import { CallStatsReq, CallStatsRes } from '../schemas/calls-stats.js';
import { CallsUsageReq, CallsUsageRes, TraceUsageReq, TraceUsageRes } from '../schemas/calls-usage.js';
import { ThreadsQueryReq } from '../schemas/threads.js';
import type { Services } from '../services/index.js';
import { sendJsonl } from './jsonl.js';
import type { RouteApp } from './route-app.js';

/** Call statistics, usage roll-ups and threads (docs/spec/calls.md §4.9–4.12). */
export default async function callsAnalyticsRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const { callStats, callUsage, threads } = services;

  app.post(
    '/calls/stats',
    { schema: { tags: ['Calls'], summary: 'Call Stats', body: CallStatsReq, response: { 200: CallStatsRes } } },
    (request) => callStats.callStats(request.caller, request.body),
  );

  app.post(
    '/calls/usage',
    { schema: { tags: ['Calls'], summary: 'Calls Usage', body: CallsUsageReq, response: { 200: CallsUsageRes } } },
    (request) => callUsage.callsUsage(request.caller, request.body),
  );

  app.post(
    '/trace/usage',
    { schema: { tags: ['Calls'], summary: 'Trace Usage', body: TraceUsageReq, response: { 200: TraceUsageRes } } },
    (request) => callUsage.traceUsage(request.caller, request.body),
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
