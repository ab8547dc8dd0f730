import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
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
          { project_id: projectId, object_id: name!, digest: digest!, include_tags_and_aliases: true },
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

/** Latest version of every object and op, with tags and aliases (objects spec §3.3). */
export function useObjectsList(projectId: string) {
  return useQuery({
    queryKey: keys.objList(projectId),
    queryFn: async ({ signal }) =>
      (
        await postJson<{ objs: ObjVersion[] }>(
          '/objs/query',
          {
            project_id: projectId,
            filter: { latest_only: true },
            metadata_only: true,
            include_tags_and_aliases: true,
            sort_by: [{ field: 'created_at', direction: 'desc' }],
            limit: 1000,
          },
          signal,
        )
      ).objs,
  });
}

/** The latest version of every object whose base class is `baseClass` (values included), by name. */
export async function latestOfClass(projectId: string, baseClass: string, signal?: AbortSignal): Promise<ObjVersion[]> {
  return (
    await postJson<{ objs: ObjVersion[] }>(
      '/objs/query',
      {
        project_id: projectId,
        filter: { base_object_classes: [baseClass], latest_only: true },
        sort_by: [{ field: 'object_id', direction: 'asc' }],
        limit: 500,
      },
      signal,
    )
  ).objs;
}

/** Every version of one object, newest first. */
export function useObjectVersions(projectId: string, name: string) {
  return useQuery({
    queryKey: keys.objVersions(projectId, name),
    queryFn: async ({ signal }) =>
      (
        await postJson<{ objs: ObjVersion[] }>(
          '/objs/query',
          {
            project_id: projectId,
            filter: { object_ids: [name] },
            metadata_only: true,
            include_tags_and_aliases: true,
            sort_by: [{ field: 'created_at', direction: 'desc' }],
            limit: 1000,
          },
          signal,
        )
      ).objs,
  });
}

export interface TableRow {
  digest: string;
  val: unknown;
  original_index: number;
}

export const TABLE_PAGE = 200;

/**
 * The pages of a stored table that are on screen, each fetched through `/table/query` with
 * offset/limit and cached by page number, so a jump to row 50,000 loads that page alone.
 */
export function useTablePages(projectId: string, digest: string, pages: number[]) {
  return useQueries({
    queries: pages.map((page) => ({
      queryKey: keys.tablePage(projectId, digest, page),
      staleTime: Infinity,
      queryFn: async ({ signal }: { signal: AbortSignal }) =>
        (
          await postJson<{ rows: TableRow[] }>(
            '/table/query',
            { project_id: projectId, digest, limit: TABLE_PAGE, offset: page * TABLE_PAGE },
            signal,
          )
        ).rows,
    })),
  });
}

export function useTableCount(projectId: string, digest: string | null) {
  return useQuery({
    queryKey: keys.tableCount(projectId, digest ?? ''),
    enabled: digest != null,
    staleTime: Infinity,
    queryFn: async ({ signal }) =>
      (await postJson<{ count: number }>('/table/query_stats', { project_id: projectId, digest: digest! }, signal))
        .count,
  });
}

/** Adds or removes tags of a version, sets or removes aliases of an object (objects spec §3.5). */
export function useObjectLabels(projectId: string, name: string) {
  const qc = useQueryClient();
  const path = `/objs/${encodeURIComponent(name)}`;
  return useMutation({
    mutationFn: async (op: {
      action: 'add-tag' | 'remove-tag' | 'set-alias' | 'remove-alias';
      digest: string;
      value: string;
    }) => {
      const version = `${path}/versions/${encodeURIComponent(op.digest)}/tags`;
      if (op.action === 'add-tag')
        await request(version, { method: 'PUT', body: { project_id: projectId, tags: [op.value] } });
      else if (op.action === 'remove-tag')
        await request(`${version}/remove`, { body: { project_id: projectId, tags: [op.value] } });
      else if (op.action === 'set-alias')
        await request(`${path}/aliases`, {
          method: 'PUT',
          body: { project_id: projectId, digest: op.digest, aliases: [op.value] },
        });
      else await request(`${path}/aliases/remove`, { body: { project_id: projectId, aliases: [op.value] } });
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}
