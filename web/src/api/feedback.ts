import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Feedback } from '../lib/call.js';
import { postJson } from './client.js';
import { keys } from './keys.js';

export function useFeedback(projectId: string, weaveRef: string) {
  return useQuery({
    queryKey: keys.feedback(projectId, weaveRef),
    queryFn: async ({ signal }) =>
      (
        await postJson<{ result: Feedback[] }>(
          '/feedback/query',
          {
            project_id: projectId,
            query: { $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: weaveRef }] } },
            sort_by: [{ field: 'created_at', direction: 'asc' }],
            limit: 500,
          },
          signal,
        )
      ).result,
  });
}

export function useCreateFeedback(projectId: string, weaveRef: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (f: { feedback_type: string; payload: Record<string, unknown>; creator?: string | null }) =>
      postJson<{ id: string }>('/feedback/create', { project_id: projectId, weave_ref: weaveRef, ...f }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.feedback(projectId, weaveRef) });
      void qc.invalidateQueries({ queryKey: keys.calls(projectId) });
    },
  });
}

/** Removes one feedback record (`/feedback/purge` by id). */
export function useRemoveFeedback(projectId: string, weaveRef: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      postJson<Record<string, never>>('/feedback/purge', {
        project_id: projectId,
        query: { $expr: { $eq: [{ $getField: 'id' }, { $literal: id }] } },
      }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.feedback(projectId, weaveRef) });
      void qc.invalidateQueries({ queryKey: keys.calls(projectId) });
    },
  });
}
