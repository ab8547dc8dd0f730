import { useQuery } from '@tanstack/react-query';
import { postJson, request } from './client.js';
import { keys } from './keys.js';

export interface ObjVersion {
  project_id: string;
  object_id: string;
  created_at: string;
  digest: string;
  version_index: number;
  is_latest: number;
  kind: 'op' | 'object';
  base_object_class: string | null;
  leaf_object_class: string | null;
  val: unknown;
  wb_user_id: string | null;
  tags?: string[] | null;
  aliases?: string[] | null;
}

export function useObject(projectId: string, name: string | null, digest: string | null) {
  return useQuery({
    queryKey: keys.obj(projectId, name ?? '', digest ?? ''),
    enabled: name != null && digest != null,
    staleTime: Infinity,
    queryFn: async ({ signal }) =>
      (
        await postJson<{ obj: ObjVersion }>(
          '/obj/read',
          { project_id: projectId, object_id: name, digest, include_tags_and_aliases: true },
          signal,
        )
      ).obj,
  });
}

/** The bytes of a stored file. */
export async function fetchFile(projectId: string, digest: string, signal?: AbortSignal): Promise<Uint8Array> {
  const res = await request('/files/content', {
    body: { project_id: projectId, digest },
    signal,
    accept: 'application/octet-stream',
  });
  return new Uint8Array(await res.arrayBuffer());
}

export function useFileText(projectId: string, digest: string | null) {
  return useQuery({
    queryKey: keys.file(projectId, digest ?? ''),
    enabled: digest != null,
    staleTime: Infinity,
    queryFn: async ({ signal }) => new TextDecoder().decode(await fetchFile(projectId, digest!, signal)),
  });
}

/** Names of the project's ops (latest versions), for the op-name filter. */
export function useOpNames(projectId: string) {
  return useQuery({
    queryKey: ['objects', projectId, 'ops'] as const,
    staleTime: 5 * 60_000,
    queryFn: async ({ signal }) =>
      (
        await postJson<{ objs: ObjVersion[] }>(
          '/objs/query',
          {
            project_id: projectId,
            filter: { is_op: true, latest_only: true },
            metadata_only: true,
            sort_by: [{ field: 'object_id', direction: 'asc' }],
            limit: 500,
          },
          signal,
        )
      ).objs.map((o) => o.object_id),
  });
}
