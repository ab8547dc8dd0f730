import { useQuery } from '@tanstack/react-query';
import { getJson } from './client.js';
import { keys } from './keys.js';

/** The training API the ART client writes (docs/spec/training.md §4), read for the Training pages. */

export interface TrainingModel {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  trainer: string | null;
  current_step?: number;
  created_at?: string;
}

export interface Checkpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface TrainingJob {
  id: string;
  kind: 'rl' | 'sft';
  status: JobStatus;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  parent_step: number | null;
  step: number | null;
  num_gradient_steps: number;
  error_message: string | null;
}

export interface HistoryRow {
  id: string;
  step: number;
  split: string;
  metrics: Record<string, number>;
  recorded_at: string;
}

export interface JobEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

interface Page<T> {
  data: T[];
  last_id: string;
  has_more: boolean;
}

/** At most this many pages of 100 per list: a page never waits on an unbounded read. */
const MAX_PAGES = 50;

/** Follows the §1.1 cursor (`after` = last id) until `has_more` is false. */
async function readAll<T>(path: string, signal: AbortSignal): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  let after = '';
  for (let i = 0; i < MAX_PAGES; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await getJson<Page<T>>(`${path}${sep}limit=100${after ? `&after=${after}` : ''}`, signal);
    items.push(...page.data);
    if (!page.has_more || page.data.length === 0) return { items, truncated: false };
    after = page.last_id;
  }
  return { items, truncated: true };
}

export function useTrainingModels(entity: string, project: string) {
  return useQuery({
    queryKey: keys.trainingModels(`${entity}/${project}`),
    queryFn: async ({ signal }) =>
      (
        await readAll<TrainingModel>(
          `/v1/preview/models?entity=${encodeURIComponent(entity)}&project=${encodeURIComponent(project)}`,
          signal,
        )
      ).items,
  });
}

export interface ModelDetail {
  model: TrainingModel;
  checkpoints: Checkpoint[];
  jobs: TrainingJob[];
  history: HistoryRow[];
  /** A list stopped at MAX_PAGES pages. */
  truncated: boolean;
}

export function useTrainingModel(projectId: string, modelId: string) {
  return useQuery({
    queryKey: keys.trainingModel(projectId, modelId),
    retry: false,
    queryFn: async ({ signal }): Promise<ModelDetail> => {
      const base = `/v1/preview/models/${encodeURIComponent(modelId)}`;
      const [model, checkpoints, jobs, history] = await Promise.all([
        getJson<TrainingModel>(base, signal),
        readAll<Checkpoint>(`${base}/checkpoints`, signal),
        readAll<TrainingJob>(`${base}/training-jobs`, signal),
        readAll<HistoryRow>(`${base}/history`, signal),
      ]);
      return {
        model,
        checkpoints: checkpoints.items,
        jobs: jobs.items,
        history: history.items,
        truncated: checkpoints.truncated || jobs.truncated || history.truncated,
      };
    },
  });
}

export function useJobEvents(projectId: string, jobId: string | null) {
  return useQuery({
    queryKey: keys.trainingEvents(projectId, jobId ?? ''),
    enabled: jobId !== null,
    queryFn: async ({ signal }) =>
      (await readAll<JobEvent>(`/v1/preview/training-jobs/${encodeURIComponent(jobId!)}/events`, signal)).items,
  });
}
