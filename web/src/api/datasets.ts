import { useMutation, useQueryClient } from '@tanstack/react-query';
import { datasetValue, rowsTable, type DatasetRow, type TableUpdate } from '../lib/datasets.js';
import { ApiError, postJson } from './client.js';
import type { ObjVersion } from './objects.js';

/**
 * Dataset versions written from the UI: a table made or updated through `/table/create` or
 * `/table/update`, then the dataset published again with `rows` pointing at it (a new version).
 */
export interface SavedVersion {
  name: string;
  digest: string;
}

const tableRef = (projectId: string, digest: string) => `weave:///${projectId}/table/${digest}`;

async function publish(projectId: string, name: string, val: unknown): Promise<SavedVersion> {
  const { digest } = await postJson<{ digest: string }>('/obj/create', {
    obj: { project_id: projectId, object_id: name, val },
  });
  return { name, digest };
}

async function updateTable(projectId: string, baseDigest: string, updates: TableUpdate[]): Promise<string> {
  return (
    await postJson<{ digest: string }>('/table/update', { project_id: projectId, base_digest: baseDigest, updates })
  ).digest;
}

/** The table digest of a dataset value, or an error naming what is there instead. */
function datasetTable(val: unknown): string {
  const digest = rowsTable(val);
  if (digest === null) throw new Error('This object keeps no table of rows');
  return digest;
}

async function latestVersion(projectId: string, name: string): Promise<ObjVersion | null> {
  try {
    return (
      await postJson<{ obj: ObjVersion }>('/obj/read', { project_id: projectId, object_id: name, digest: 'latest' })
    ).obj;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** Saves edited rows of `obj` (a dataset version) as the dataset's next version. */
export function useSaveRowEdits(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ obj, updates }: { obj: ObjVersion; updates: TableUpdate[] }) => {
      const digest = await updateTable(projectId, datasetTable(obj.val), updates);
      return publish(projectId, obj.object_id, { ...(obj.val as object), rows: tableRef(projectId, digest) });
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}

/**
 * Rows appended to the latest version of dataset `name`, as its next version; a name with no
 * object yet becomes a new dataset. Answers the version and whether the dataset is new.
 */
export function useAddRowsToDataset(projectId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ name, rows }: { name: string; rows: DatasetRow[] }) => {
      const latest = await latestVersion(projectId, name);
      if (!latest) {
        const { digest } = await postJson<{ digest: string }>('/table/create', {
          table: { project_id: projectId, rows },
        });
        return { ...(await publish(projectId, name, datasetValue(name, tableRef(projectId, digest)))), created: true };
      }
      const digest = await updateTable(
        projectId,
        datasetTable(latest.val),
        rows.map((row) => ({ append: { row } })),
      );
      const saved = await publish(projectId, name, { ...(latest.val as object), rows: tableRef(projectId, digest) });
      return { ...saved, created: false };
    },
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['objects', projectId] }),
  });
}
