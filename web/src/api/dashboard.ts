import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { postJson } from './client.js';
import type { ApiPaths } from './openapi.gen.js';
import { keys } from './keys.js';

/** `/calls/stats` (docs/spec/calls.md §4.9): call buckets by time, usage buckets by time and model. */
export interface CallStats {
  start: string;
  end: string;
  granularity: number;
  call_buckets: Record<string, number | string | null>[];
  usage_buckets: Record<string, number | string | null>[];
}

export interface StatsRequest {
  start: string;
  end: string;
  granularity: number;
  op: string | null;
  /** One or two dimensions every bucket is split by (the server's `group_by`). */
  groupBy: GroupDimension[];
}

/** `/calls/stats` `group_by` dimensions (docs/spec/calls.md §4.9 "Grouping"). */
export type GroupDimension = 'op' | 'status' | 'model';
export const GROUP_DIMENSIONS: readonly GroupDimension[] = ['op', 'status', 'model'];

/**
 * Calls and errors count every call; usage counts each trace once. The Python client (and Heddle's
 * OTLP ingest, docs/spec/otel-service-queues.md §A.7) rolls a call's descendants' usage into its
 * summary, so summing every call would count a nested LLM call once per ancestor: the usage request
 * reads trace roots only, or with an op chosen that op's calls (each including what it called).
 * `/calls/stats` itself answers as the reference does; this is the query the UI sends beside it.
 */
type StatsBody = ApiPaths['/calls/stats']['post']['body'];

export function useCallStats(projectId: string, req: StatsRequest) {
  const common = {
    project_id: projectId,
    start: req.start,
    end: req.end,
    granularity: req.granularity,
    ...(req.groupBy.length > 0 ? { group_by: req.groupBy } : {}),
  };
  const opFilter = req.op ? { op_names: [`weave:///${projectId}/op/${req.op}:*`] } : null;
  const callsBody: StatsBody = {
    ...common,
    filter: opFilter,
    call_metrics: [
      { metric: 'call_count', aggregations: ['sum'] },
      { metric: 'error_count', aggregations: ['sum'] },
      { metric: 'latency_ms', aggregations: [], percentiles: [50, 95, 99] },
    ],
    usage_metrics: [],
  };
  const usageBody: StatsBody = {
    ...common,
    filter: opFilter ?? { trace_roots_only: true },
    call_metrics: [],
    usage_metrics: [
      { metric: 'total_tokens', aggregations: ['sum'] },
      { metric: 'total_cost', aggregations: ['sum'] },
    ],
  };
  return useQuery({
    queryKey: keys.callStats(projectId, { callsBody, usageBody }),
    queryFn: async ({ signal }) => {
      const [calls, usage] = await Promise.all([
        postJson<CallStats>('/calls/stats', callsBody, signal),
        postJson<CallStats>('/calls/stats', usageBody, signal),
      ]);
      return { ...calls, usage_buckets: usage.usage_buckets };
    },
    placeholderData: keepPreviousData,
  });
}
