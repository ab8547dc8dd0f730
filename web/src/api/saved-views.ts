import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SavedView, SavedViewVal } from '../lib/saved-views.js';
import { postJson } from './client.js';
import type { ObjVersion } from './objects.js';

const key = (projectId: string) => ['objects', projectId, 'saved-views'] as const;

/** The project's traces views: latest versions of its `SavedView` objects with `view_type` traces. */
export function useSavedViews(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    staleTime: 30_000,
    queryFn: async ({ signal }) => {
      const { objs } = await postJson<{ objs: ObjVersion[] }>(
        '/objs/query',
        {
          project_id: projectId,
          filter: { base_object_classes: ['SavedView'], latest_only: true },
          sort_by: [{ field: 'created_at', direction: 'desc' }],
          limit: 500,
        },
        signal,
      );
      return objs
        .map((o) => ({
          ...(o.val as SavedViewVal),
          object_id: o.object_id,
          digest: o.digest,
          created_at: o.created_at,
        }))
        .filter((v): v is SavedView => v.view_type === 'traces' && typeof v.label === 'string');
    },
  });
}

/** Saves a view (a new object, or a new version of `object_id`) through `/obj/create`. */
export function useSaveView(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ objectId, val }: { objectId: string; val: SavedViewVal }) =>
      postJson<{ digest: string; object_id: string }>('/obj/create', {
        obj: { project_id: projectId, object_id: objectId, val, builtin_object_class: 'SavedView' },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: key(projectId) }),
  });
}

/** Deletes a view (every version of its object) through `/obj/delete`. */
export function useDeleteView(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (objectId: string) =>
      postJson<{ num_deleted: number }>('/obj/delete', { project_id: projectId, object_id: objectId }),
    onSuccess: () => qc.invalidateQueries({ queryKey: key(projectId) }),
  });
}
