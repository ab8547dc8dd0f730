import { useQuery } from '@tanstack/react-query';
import type { Call } from '../lib/call.js';
import { postJsonl } from './client.js';
import { keys } from './keys.js';

export interface Thread {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id: string | null;
  last_turn_id: string | null;
  p50_turn_duration_ms: number | null;
  p99_turn_duration_ms: number | null;
}

export function useThreads(projectId: string) {
  return useQuery({
    queryKey: keys.threads(projectId),
    queryFn: ({ signal }) =>
      postJsonl<Thread>(
        '/threads/stream_query',
        { project_id: projectId, sort_by: [{ field: 'last_updated', direction: 'desc' }], limit: 1000 },
        signal,
      ),
  });
}

/** A thread's turn calls (id = turn_id), oldest first, with inputs and outputs. */
export function useTurns(projectId: string, threadId: string | null) {
  return useQuery({
    queryKey: keys.turns(projectId, threadId ?? ''),
    enabled: threadId != null,
    queryFn: ({ signal }) =>
      postJsonl<Call>(
        '/calls/stream_query',
        {
          project_id: projectId,
          filter: { thread_ids: [threadId!] },
          query: { $expr: { $eq: [{ $getField: 'id' }, { $getField: 'turn_id' }] } },
          sort_by: [{ field: 'started_at', direction: 'asc' }],
          limit: 1000,
        },
        signal,
      ),
  });
}
