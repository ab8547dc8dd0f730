/**
 * The reward statistics an RL job records in its model's metric history (docs/art-client.md, "Reward
 * history"). ART ≥ 0.5.20 never calls `POST …/log` (it computes its metrics client-side), so without
 * this a model trained by the official client had no reward curve. On success a job writes one
 * history row at the step it produced, split `train`, with the §7 metrics of the groups it trained on
 * (docs/spec/training.md §7: `train/reward`, `train/reward_std_dev`, `train/exception_rate`, …) —
 * the names and the step ART's own `model.log(groups, step=result.step, split="train")` writes
 * locally.
 *
 * No double counting: the same groups are counted once. A client that also logs them through `/log`
 * with split `train` — before the job, at the parent step (docs/spec/training.md §8 step 5), or after
 * it, at the new step — keeps its own row: the job writes none when such a row at its parent step
 * holds the same groups, and a later `/log` of the job's groups at its step replaces the job's row.
 * "Same groups" is equality of the canonical JSON of the normalized groups; other `/log` calls (val,
 * other groups) are kept side by side as before.
 */
import { canonicalJson } from '../../domain/canonical-json.js';
import { uuidv7 } from '../../domain/ids.js';
import type { JobSuccess, LogHistoryRow, TrainingJobRow, TrainingStore } from '../../store/training-types.js';
import type { RlJobInput } from './job-service.js';
import { computeLogMetrics } from './log-metrics.js';
import { normalizeGroups } from './normalize-groups.js';

/** The split of the rows jobs write: the groups a job trains on are its training data. */
export const JOB_HISTORY_SPLIT = 'train';

/**
 * What a job's row keeps in the `trajectory_groups` column: a reference to the job, whose input
 * already holds the groups (a history row of `/log` keeps them verbatim, an array).
 */
function jobReference(jobId: string): string {
  return JSON.stringify({ training_job_id: jobId });
}

function referencedJob(row: LogHistoryRow): string | null {
  try {
    const parsed: unknown = JSON.parse(row.groups);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    const id = (parsed as Record<string, unknown>).training_job_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

const groupsKey = (groups: unknown[]): string => canonicalJson(normalizeGroups(groups));

function loggedGroups(row: LogHistoryRow): unknown[] | null {
  try {
    const parsed: unknown = JSON.parse(row.groups);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The row a succeeding job writes (JobSuccess.history), or null: not RL, or the client logged its groups. */
export async function jobHistory(store: TrainingStore, job: TrainingJobRow): Promise<JobSuccess['history']> {
  if (job.kind !== 'rl') return null;
  const groups = (JSON.parse(job.input) as RlJobInput).trajectory_groups;
  if (job.parent_step !== null) {
    const key = groupsKey(groups);
    const logged = await store.logRowsAt(job.project_id, job.model_id, JOB_HISTORY_SPLIT, job.parent_step);
    if (logged.some((row) => referencedJob(row) === null && sameGroups(row, key))) return null;
  }
  const metrics = computeLogMetrics(JOB_HISTORY_SPLIT, groups as Parameters<typeof computeLogMetrics>[1]);
  return { id: uuidv7(), split: JOB_HISTORY_SPLIT, metrics: JSON.stringify(metrics), groups: jobReference(job.id) };
}

function sameGroups(row: LogHistoryRow, key: string): boolean {
  const groups = loggedGroups(row);
  return groups !== null && groupsKey(groups) === key;
}

/**
 * For a `/log` of `groups` at `step`: the id of the job-written row it replaces (a row at that step
 * and split written by a job that trained on the same groups), else null.
 */
export async function replacedJobRow(
  store: TrainingStore,
  model: { project_id: string; id: string },
  split: string,
  step: number,
  groups: unknown[],
): Promise<string | null> {
  if (split !== JOB_HISTORY_SPLIT) return null;
  const rows = await store.logRowsAt(model.project_id, model.id, split, step);
  let key: string | null = null;
  for (const row of rows) {
    const jobId = referencedJob(row);
    if (jobId === null) continue;
    const job = await store.getJob(model.project_id, jobId);
    if (!job || job.model_id !== model.id) continue;
    key ??= groupsKey(groups);
    if (groupsKey((JSON.parse(job.input) as RlJobInput).trajectory_groups) === key) return row.id;
  }
  return null;
}
