import { ConflictError, InvalidRequestError, ForbiddenError } from '../../errors/app-error.js';
import { uuidv7 } from '../../domain/ids.js';
import { formatMicros, nowMicros } from '../../domain/time.js';
import type { CheckpointRow, TrainingModelRow, TrainingStore } from '../../store/training-types.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import { computeLogMetrics } from './log-metrics.js';
import type { ModelLookup } from './model-lookup.js';
import { normalizeGroups } from './normalize-groups.js';
import { replacedJobRow } from './job-history.js';
import { jobView } from './job-service.js';
import { isUuid, nonEmpty, parseLimit, parseOrder, toPage, unknownAfter, type Page } from './paging.js';
import type { TrainingSettings } from './settings.js';

export interface ModelCreateInput {
  entity?: string | null;
  project: string;
  name: string;
  base_model: string;
  return_existing?: boolean | null;
}

export type ModelView = Record<string, unknown> & { id: string };

/** §4.1 `ModelResponse`, plus which trainer produced the newest checkpoint (issue 7). */
export function modelView(m: TrainingModelRow): ModelView {
  return {
    id: m.id,
    entity: m.entity,
    project: m.project,
    name: m.name,
    base_model: m.base_model,
    run_id: m.run_id,
    trainer: m.trainer,
  };
}

function checkpointView(c: CheckpointRow): { id: string; step: number; metrics: Record<string, number> } {
  return { id: c.id, step: c.step, metrics: JSON.parse(c.metrics) as Record<string, number> };
}

/** Models, checkpoints and `/log` of the training API (docs/spec/training.md §4.1–§4.5, §4.12). */
export class TrainingModelService {
  constructor(
    private readonly store: TrainingStore,
    private readonly access: ProjectAccess,
    private readonly lookup: ModelLookup,
    private readonly settings: TrainingSettings,
  ) {}

  async create(caller: Caller, input: ModelCreateInput): Promise<ModelView> {
    for (const field of ['project', 'name', 'base_model'] as const) nonEmpty(field, input[field]);
    const entity = input.entity ?? caller.defaultEntity;
    const projectId = `${entity}/${input.project}`;
    await this.access.assertCanWrite(caller, projectId);
    const allowed = this.settings.allowedBaseModels;
    if (allowed && !allowed.includes(input.base_model))
      throw new InvalidRequestError(`Unsupported base model: ${input.base_model}`);
    const { model, created } = await this.store.createModel({
      project_id: projectId,
      id: uuidv7(),
      entity,
      project: input.project,
      name: input.name,
      base_model: input.base_model,
      run_id: null,
      created_by: caller.userId,
      created_at: nowMicros(),
      deleted_at: null,
      last_step: 0,
      trainer: null,
    });
    if (!created && input.return_existing !== true)
      throw new ConflictError(`Model '${input.name}' already exists in ${entity}/${input.project}`);
    return modelView(model);
  }

  /** §4.12: one model with its current step. */
  async get(caller: Caller, id: string): Promise<ModelView> {
    const model = await this.lookup.live(caller, id);
    const newest = await this.store.getCheckpoint(model.project_id, model.id, null);
    return { ...modelView(model), current_step: newest?.step ?? 0, created_at: formatMicros(model.created_at) };
  }

  /** §4.12: the caller's live models, ascending by creation (ids are UUIDv7). */
  async list(
    caller: Caller,
    q: { after?: string; limit?: string; entity?: string; project?: string },
  ): Promise<Page<ModelView>> {
    const limit = parseLimit(q.limit);
    if (q.entity !== undefined && !caller.isAdmin && !caller.entities.has(q.entity))
      throw new ForbiddenError(`You do not have access to entity ${q.entity}`);
    const entities = q.entity !== undefined ? [q.entity] : caller.isAdmin ? null : [...caller.entities];
    if (q.after !== undefined) {
      const where = await this.store.resolveId(q.after);
      const after = where?.kind === 'model' ? await this.store.getModel(where.project_id, q.after) : null;
      if (!after || after.deleted_at !== null || (entities !== null && !entities.includes(after.entity)))
        throw unknownAfter(q.after);
    }
    const rows = await this.store.listModels(entities, q.project ?? null, q.after ?? null, limit + 1);
    return toPage(rows, limit, modelView);
  }

  /** §4.2: tombstones the model; its queued and running jobs end with `training_failed`. */
  async delete(
    caller: Caller,
    id: string,
  ): Promise<{ model_id: string; deleted_checkpoints: number; deleted_run: boolean }> {
    const model = await this.lookup.live(caller, id, true);
    const result = await this.store.deleteModel(model.project_id, model.id, nowMicros(), 'Model was deleted', uuidv7);
    // A concurrent delete won: the answer is the same as for an already deleted model.
    if (!result) return { model_id: model.id, deleted_checkpoints: 0, deleted_run: false };
    return { model_id: model.id, deleted_checkpoints: result.deletedCheckpoints, deleted_run: false };
  }

  async listCheckpoints(
    caller: Caller,
    id: string,
    q: { after?: string; limit?: string; order?: string },
  ): Promise<Page<ReturnType<typeof checkpointView>>> {
    const limit = parseLimit(q.limit);
    const order = parseOrder(q.order);
    const model = await this.lookup.live(caller, id);
    let afterStep: number | null = null;
    if (q.after !== undefined) {
      afterStep = await this.store.checkpointStep(model.project_id, model.id, q.after.toLowerCase());
      if (afterStep === null) throw unknownAfter(q.after);
    }
    const rows = await this.store.listCheckpoints(model.project_id, model.id, afterStep, order, limit + 1);
    return toPage(rows, limit, checkpointView);
  }

  /**
   * Our choice (extension for the web UI, §4.12): the model's jobs in creation order, each in the
   * §4.7 view. `after` must name a job of this model.
   */
  async listJobs(caller: Caller, id: string, q: { after?: string; limit?: string }): Promise<Page<ModelView>> {
    const limit = parseLimit(q.limit);
    const model = await this.lookup.live(caller, id);
    const after = q.after?.toLowerCase() ?? null;
    if (after !== null && (await this.store.getJob(model.project_id, after))?.model_id !== model.id)
      throw unknownAfter(q.after!);
    const rows = await this.store.listJobs(model.project_id, model.id, after, limit + 1);
    return toPage(rows, limit, (j) => jobView(j) as ModelView);
  }

  /**
   * Our choice (extension for the web UI, §4.12): the `/log` history of §4.5 step 4 and the rows RL
   * jobs record (job-history.ts), oldest first,
   * as `{id, step, split, metrics, recorded_at}` (the logged trajectories stay out). `after` is the
   * id of a history row; being UUIDv7 it is a position, so an id that was never a row is accepted.
   */
  async listHistory(
    caller: Caller,
    id: string,
    q: { after?: string; limit?: string },
  ): Promise<Page<{ id: string; step: number; split: string; metrics: Record<string, number>; recorded_at: string }>> {
    const limit = parseLimit(q.limit);
    if (q.after !== undefined && !isUuid(q.after)) throw unknownAfter(q.after);
    const model = await this.lookup.live(caller, id);
    const rows = await this.store.listLogHistory(model.project_id, model.id, q.after?.toLowerCase() ?? null, limit + 1);
    return toPage(rows, limit, (r) => ({
      id: r.id,
      step: r.step,
      split: r.split,
      metrics: JSON.parse(r.metrics) as Record<string, number>,
      recorded_at: formatMicros(r.recorded_at),
    }));
  }

  /** §4.4: `not_found_steps` in request order, duplicates removed. */
  async deleteCheckpoints(
    caller: Caller,
    id: string,
    steps: number[],
  ): Promise<{ deleted_count: number; not_found_steps: number[] }> {
    const model = await this.lookup.live(caller, id, true);
    const unique = [...new Set(steps)];
    const deleted = new Set(await this.store.deleteCheckpoints(model.project_id, model.id, unique));
    return { deleted_count: deleted.size, not_found_steps: unique.filter((s) => !deleted.has(s)) };
  }

  /**
   * §4.5: metrics of §7 under `<split>/`, a history row, merged into the current checkpoint. A `train`
   * log of the groups a job trained on replaces the row that job wrote at this step (job-history.ts).
   */
  async log(
    caller: Caller,
    id: string,
    body: { split: string; trajectory_groups: unknown[] },
  ): Promise<Record<string, unknown>> {
    nonEmpty('split', body.split);
    const model = await this.lookup.liveOrRegister(caller, id);
    const newest = await this.store.getCheckpoint(model.project_id, model.id, null);
    const step = newest?.step ?? 0;
    const metrics = computeLogMetrics(
      body.split,
      normalizeGroups(body.trajectory_groups) as Parameters<typeof computeLogMetrics>[1],
    );
    // A job that trained on these groups may have recorded them at this step already (job-history.ts).
    const replaces = await replacedJobRow(this.store, model, body.split, step, body.trajectory_groups);
    await this.store.appendLog(
      {
        project_id: model.project_id,
        model_id: model.id,
        id: uuidv7(),
        step,
        split: body.split,
        metrics: JSON.stringify(metrics),
        groups: JSON.stringify(body.trajectory_groups),
        recorded_at: nowMicros(),
      },
      replaces,
    );
    return { model_id: model.id, split: body.split, step, metrics };
  }
}
