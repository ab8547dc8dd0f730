import { useQueries, useQuery } from '@tanstack/react-query';
import type { Call } from '../lib/call.js';
import { inputRefQuery } from '../lib/object-kinds.js';
import { opNameVariants } from '../lib/query.js';
import { COUNT_LIMIT, type CountResult } from './calls.js';
import { postJson, postJsonl } from './client.js';
import { keys } from './keys.js';

/**
 * The number of calls of each op, one `/calls/query_stats` per entry of `ops` (an op version's
 * ref, or a name for every version, as the traces page's `op` takes them), counted up to
 * COUNT_LIMIT; the results in the order given.
 */
export function useOpCallCounts(projectId: string, ops: readonly string[]) {
  return useQueries({
    queries: ops.map((op) => {
      const body = { project_id: projectId, filter: { op_names: opNameVariants(projectId, op) }, limit: COUNT_LIMIT };
      return {
        queryKey: keys.callsCount(projectId, body),
        staleTime: 30_000,
        queryFn: ({ signal }: { signal: AbortSignal }) => postJson<CountResult>('/calls/query_stats', body, signal),
      };
    }),
  });
}

/** How many calls, newest first, a usage list shows. */
export const USAGE_SHOWN = 10;

const USAGE_COLUMNS = ['id', 'op_name', 'display_name', 'trace_id', 'started_at', 'ended_at', 'exception', 'summary'];

/** The newest calls whose input `field` is exactly `ref` (of `op` only, when given), and how many there are. */
export function useInputRefCalls(projectId: string, field: string, ref: string, op?: string) {
  const query = inputRefQuery(field, ref);
  const filter = op ? { op_names: opNameVariants(projectId, op) } : {};
  const listBody = {
    project_id: projectId,
    filter,
    query,
    columns: USAGE_COLUMNS,
    sort_by: [{ field: 'started_at', direction: 'desc' as const }],
    limit: USAGE_SHOWN,
  };
  const countBody = { project_id: projectId, filter, query, limit: COUNT_LIMIT };
  const list = useQuery({
    queryKey: keys.callsQuery(projectId, listBody),
    staleTime: 30_000,
    queryFn: ({ signal }) => postJsonl<Call>('/calls/stream_query', listBody, signal),
  });
  const count = useQuery({
    queryKey: keys.callsCount(projectId, countBody),
    staleTime: 30_000,
    queryFn: ({ signal }) => postJson<CountResult>('/calls/query_stats', countBody, signal),
  });
  return { list, count };
}
