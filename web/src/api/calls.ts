import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { Call } from '../lib/call.js';
import { formatInt } from '../lib/format.js';
import type { CallsFilter, Query, SortBy } from '../lib/query.js';
import { postJson, postJsonl } from './client.js';
import { keys } from './keys.js';

export const PAGE_SIZE = 200;
export const COUNT_LIMIT = 10_000;

/** Columns the traces table shows; inputs and output stay on the server. */
export const TABLE_COLUMNS = [
  'id',
  'op_name',
  'display_name',
  'trace_id',
  'parent_id',
  'thread_id',
  'started_at',
  'ended_at',
  'exception',
  'summary',
];

export interface CallsRequest {
  project_id: string;
  filter: CallsFilter;
  query: Query | null;
  sort_by: SortBy[];
}

/**
 * Infinite list of calls over `/calls/stream_query`, pages of PAGE_SIZE, with only the top-level
 * fields `columns` names (default TABLE_COLUMNS; lib/columns.ts `fetchedFields` adds inputs or
 * output when a shown column needs them).
 */
export function useCallsInfinite(req: CallsRequest | null, columns: readonly string[] = TABLE_COLUMNS) {
  return useInfiniteQuery({
    queryKey: keys.callsQuery(req?.project_id ?? '', { req, columns }),
    enabled: req != null,
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) =>
      postJsonl<Call>(
        '/calls/stream_query',
        {
          // enabled only with a request
          ...req!,
          columns: [...columns],
          include_costs: true,
          include_feedback: true,
          limit: PAGE_SIZE,
          offset: pageParam,
        },
        signal,
      ),
    getNextPageParam: (last, pages) => (last.length < PAGE_SIZE ? undefined : pages.length * PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
}

export interface CountResult {
  count: number;
  has_more: boolean | null;
}

/** A count as shown: "1,234", or "10,000+" past COUNT_LIMIT. */
export function countText(r: CountResult): string {
  return r.has_more ? `${formatInt(COUNT_LIMIT)}+` : formatInt(r.count);
}

export function useCallsCount(req: CallsRequest | null) {
  const body = req && { project_id: req.project_id, filter: req.filter, query: req.query, limit: COUNT_LIMIT };
  return useQuery({
    queryKey: keys.callsCount(req?.project_id ?? '', body),
    enabled: req != null,
    queryFn: ({ signal }) => postJson<CountResult>('/calls/query_stats', body!, signal),
    placeholderData: keepPreviousData,
  });
}

export function useCall(projectId: string, id: string | null) {
  return useQuery({
    queryKey: keys.call(projectId, id ?? ''),
    enabled: id != null,
    queryFn: async ({ signal }) =>
      (
        await postJson<{ call: Call | null }>(
          '/call/read',
          { project_id: projectId, id: id!, include_costs: true },
          signal,
        )
      ).call,
  });
}

const traceQuery = (projectId: string, traceId: string | null) => ({
  queryKey: keys.trace(projectId, traceId ?? ''),
  enabled: traceId != null,
  // a refetch of tens of thousands of rows replaces them: comparing them deep would be one long task
  structuralSharing: false,
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    postJsonl<Call>(
      '/calls/stream_query',
      {
        project_id: projectId,
        filter: { trace_ids: [traceId!] },
        columns: ['id', 'op_name', 'display_name', 'parent_id', 'started_at', 'ended_at', 'exception', 'summary'],
        sort_by: [{ field: 'started_at', direction: 'asc' }],
      },
      signal,
    ),
});

/** Every call of a trace, without inputs and outputs (a trace may hold tens of thousands). */
export function useTraceCalls(projectId: string, traceId: string | null) {
  return useQuery(traceQuery(projectId, traceId));
}

/** Every call of each trace (same cache as useTraceCalls), in the order of `traceIds`. */
export function useTracesCalls(projectId: string, traceIds: readonly string[]) {
  return useQueries({ queries: traceIds.map((id) => traceQuery(projectId, id)) });
}

/** A few calls of the view with their inputs and output: where the column chooser finds leaves. */
export function useCallsSample(req: CallsRequest | null, enabled: boolean) {
  return useQuery({
    queryKey: keys.callsQuery(req?.project_id ?? '', { req, sample: true }),
    enabled: enabled && req != null,
    staleTime: 60_000,
    queryFn: ({ signal }) =>
      postJsonl<Call>('/calls/stream_query', { ...req!, columns: ['id', 'inputs', 'output'], limit: 50 }, signal),
  });
}

/** Whole calls by id (inputs, output, summary, attributes), in the order of `ids`; missing ones dropped. */
export function useCallsByIds(projectId: string, ids: readonly string[]) {
  return useQuery({
    queryKey: keys.callsQuery(projectId, { compare: ids }),
    enabled: ids.length > 0,
    queryFn: async ({ signal }) => {
      const calls = await postJsonl<Call>(
        '/calls/stream_query',
        { project_id: projectId, filter: { call_ids: [...ids] }, include_costs: true, limit: ids.length },
        signal,
      );
      const byId = new Map(calls.map((c) => [c.id, c]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
  });
}

/** Deletes calls by id, with their descendants (calls spec §3.1). */
export function useDeleteCalls(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) =>
      postJson<{ num_deleted: number }>('/calls/delete', { project_id: projectId, call_ids: ids }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.calls(projectId) }),
  });
}
