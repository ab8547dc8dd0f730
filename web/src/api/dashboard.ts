import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { postJson } from './client.js';
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

export function useCallStats(projectId: string, req: StatsRequest) {
  const body = {
    project_id: projectId,
    start: req.start,
    end: req.end,
    granularity: req.granularity,
    filter: req.op ? { op_names: [`weave:///${projectId}/op/${req.op}:*`] } : null,
    ...(req.groupBy.length > 0 ? { group_by: req.groupBy } : {}),
    call_metrics: [
      { metric: 'call_count', aggregations: ['sum'] },
      { metric: 'error_count', aggregations: ['sum'] },
      { metric: 'latency_ms', aggregations: [], percentiles: [50, 95, 99] },
    ],
    usage_metrics: [
      { metric: 'total_tokens', aggregations: ['sum'] },
      { metric: 'total_cost', aggregations: ['sum'] },
    ],
  };
  return useQuery({
    queryKey: keys.callStats(projectId, body),
    queryFn: ({ signal }) => postJson<CallStats>('/calls/stats', body, signal),
    placeholderData: keepPreviousData,
  });
}
