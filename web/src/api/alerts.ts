import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getJson, postJson, request } from './client.js';
import { keys } from './keys.js';
import type { ApiPaths } from './openapi.gen.js';

/** Alerts (docs/alerts.md): AlertSpec objects, their states, history and deliveries, and muting. */
export type Alert = ApiPaths['/projects/{entity}/{project}/alerts']['get']['response']['alerts'][number];
export type AlertHistory = ApiPaths['/projects/{entity}/{project}/alerts/{alert_id}/history']['get']['response'];
export type AlertHistoryEvent = AlertHistory['events'][number];

/** What an AlertSpec object holds (`val`): the op refs it applies to and its spec dictionary. */
export interface AlertSpecValue {
  op_scope: string[];
  spec: Record<string, unknown>;
}

const base = (projectId: string) => `/projects/${projectId.split('/').map(encodeURIComponent).join('/')}/alerts`;

/** The project's alerts; refreshed every few seconds, as the server evaluates them in the background. */
export function useAlerts(projectId: string) {
  return useQuery({
    queryKey: keys.alerts(projectId),
    queryFn: async ({ signal }) =>
      (await getJson<ApiPaths['/projects/{entity}/{project}/alerts']['get']['response']>(base(projectId), signal))
        .alerts,
    refetchInterval: 3000,
  });
}

/** One alert's state changes, newest first, each with its notifications' deliveries. */
export function useAlertHistory(projectId: string, alertId: string | null) {
  return useQuery({
    queryKey: keys.alertHistory(projectId, alertId ?? ''),
    queryFn: ({ signal }) =>
      getJson<AlertHistory>(`${base(projectId)}/${encodeURIComponent(alertId!)}/history?limit=100`, signal),
    enabled: alertId !== null,
    refetchInterval: 3000,
  });
}

/** Publishes an AlertSpec version (a new alert, or an edit: state, mute and history stay). */
export function useSaveAlert(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ alertId, val }: { alertId: string; val: AlertSpecValue }) =>
      postJson<{ digest: string }>('/obj/create', {
        obj: { project_id: projectId, object_id: alertId, builtin_object_class: 'AlertSpec', val },
      }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.alertsArea(projectId) }),
  });
}

/** Deletes the AlertSpec object: the alert stops at its next evaluation (publishing it again restarts it). */
export function useDeleteAlert(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (alertId: string) => postJson('/obj/delete', { project_id: projectId, object_id: alertId }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.alertsArea(projectId) }),
  });
}

export function useMuteAlert(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ alertId, muted, until }: { alertId: string; muted: boolean; until?: string }) => {
      const body: ApiPaths['/projects/{entity}/{project}/alerts/{alert_id}/mute']['put']['body'] = {
        muted,
        ...(until ? { until } : {}),
      };
      await request(`${base(projectId)}/${encodeURIComponent(alertId)}/mute`, { method: 'PUT', body });
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.alertsArea(projectId) }),
  });
}
