import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { monitorRefStem, monitorView, type MonitorView, type ScoreFeedback } from '../lib/monitors.js';
import { postJson } from './client.js';
import { latestOfClass } from './objects.js';

/** Scores a monitor page lists, newest first. */
export const SCORES_LIMIT = 100;

/** The project's monitors: the latest version of every object whose base class is `Monitor`. */
export function useMonitors(projectId: string) {
  return useQuery({
    queryKey: ['objects', projectId, 'monitors'] as const,
    refetchInterval: 5_000,
    queryFn: async ({ signal }) => (await latestOfClass(projectId, 'Monitor', signal)).map(monitorView),
  });
}

/** A monitor's scores (feedback whose `trigger_ref` is one of its versions), newest first, and their count. */
export function useMonitorScores(projectId: string, name: string | null) {
  return useQuery({
    queryKey: ['feedback', projectId, 'monitor', name] as const,
    enabled: name != null,
    refetchInterval: 3_000,
    queryFn: async ({ signal }) => {
      const res = await postJson<{ result: ScoreFeedback[]; total_count?: number }>(
        '/feedback/query',
        {
          project_id: projectId,
          query: {
            $expr: {
              $contains: {
                input: { $getField: 'trigger_ref' },
                substr: { $literal: monitorRefStem(projectId, name!) },
              },
            },
          },
          sort_by: [{ field: 'created_at', direction: 'desc' }],
          limit: SCORES_LIMIT,
        },
        signal,
      );
      return { scores: res.result, total: res.total_count ?? res.result.length };
    },
  });
}

/** Publishes the monitor again with `active` set: the server starts or stops scoring (docs/monitors.md). */
export function useSetMonitorActive(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ monitor, active }: { monitor: MonitorView; active: boolean }) =>
      postJson<{ digest: string }>('/obj/create', {
        obj: { project_id: projectId, object_id: monitor.name, val: { ...monitor.val, active } },
      }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}
