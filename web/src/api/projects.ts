import { useQuery } from '@tanstack/react-query';
import { getJson } from './client.js';
import { keys } from './keys.js';

export interface Project {
  project_id: string;
  entity: string;
  name: string;
  created_at: string | null;
  last_call_at: string | null;
  call_count: number | null;
}

export function useProjects() {
  return useQuery({
    queryKey: keys.projects(),
    queryFn: ({ signal }) => getJson<{ projects: Project[] }>('/projects', signal),
  });
}
