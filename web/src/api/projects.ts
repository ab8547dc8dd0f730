import { useQuery } from '@tanstack/react-query';
import { COUNT_LIMIT, type CountResult } from './calls.js';
import { getJson, postJson } from './client.js';
import { keys } from './keys.js';

export interface Project {
  project_id: string;
  entity: string;
  name: string;
  created_at: string | null;
  last_call_at: string | null;
  /** Always null from `GET /projects` (it counts nothing); the page asks useProjectCallCount. */
  call_count: number | null;
}

export function useProjects() {
  return useQuery({
    queryKey: keys.projects(),
    queryFn: ({ signal }) => getJson<{ projects: Project[] }>('/projects', signal),
  });
}

/**
 * A project's calls, counted up to COUNT_LIMIT by `/calls/query_stats` (`has_more` beyond it), so a
 * project with millions of calls costs no more than one with ten thousand. `enabled` is false until
 * the row is on screen: a long list asks only for what is seen.
 */
export function useProjectCallCount(projectId: string, enabled: boolean) {
  const body = { project_id: projectId, limit: COUNT_LIMIT };
  return useQuery({
    queryKey: keys.callsCount(projectId, body),
    enabled,
    staleTime: 60_000,
    queryFn: ({ signal }) => postJson<CountResult>('/calls/query_stats', body, signal),
  });
}
