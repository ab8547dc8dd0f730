import { NotFoundError } from '../../errors/app-error.js';
import { nowMicros } from '../../domain/time.js';
import type { TrainingModelRow, TrainingStore } from '../../store/training-types.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import { isUuid } from './paging.js';
import type { TrainingSettings } from './settings.js';

/** Project of implicitly registered models (docs/spec/training.md §4.6). */
export const IMPLICIT_PROJECT = 'default';

/**
 * Finds the model a path or body id names, with the tenancy check (another entity's model → 403)
 * and the tombstone rule (a deleted model stays 404). Shared by every training service.
 */
export class ModelLookup {
  constructor(
    private readonly store: TrainingStore,
    private readonly access: ProjectAccess,
    private readonly settings: TrainingSettings,
  ) {}

  /** The live model; 404 for unknown or deleted ids, 403 for another entity's. */
  async live(caller: Caller, id: string, write = false): Promise<TrainingModelRow> {
    const model = await this.#find(caller, id, write);
    if (!model) throw new NotFoundError('Model not found');
    return model;
  }

  /**
   * As `live`, but a well-formed UUID that never named a model registers it in the caller's
   * default entity, project `default`, on the built-in policy (§4.6, implicit registration).
   */
  async liveOrRegister(caller: Caller, id: string): Promise<TrainingModelRow> {
    const found = await this.#find(caller, id, true);
    if (found) return found;
    if (found === undefined || !isUuid(id)) throw new NotFoundError('Model not found');
    const projectId = `${caller.defaultEntity}/${IMPLICIT_PROJECT}`;
    await this.access.assertCanWrite(caller, projectId);
    const lower = id.toLowerCase();
    const { model } = await this.store.createModel({
      project_id: projectId,
      id: lower,
      entity: caller.defaultEntity,
      project: IMPLICIT_PROJECT,
      name: lower,
      base_model: this.settings.builtinBaseModel,
      run_id: null,
      created_by: caller.userId,
      created_at: nowMicros(),
      deleted_at: null,
      last_step: 0,
      trainer: null,
    });
    // A model of that name already existed in the project with another id: the id is still unknown.
    if (model.id !== lower) throw new NotFoundError('Model not found');
    return model;
  }

  /** The live model; null when the id is unknown; undefined when it names a deleted model or a job. */
  async #find(caller: Caller, id: string, write: boolean): Promise<TrainingModelRow | null | undefined> {
    const key = isUuid(id) ? id.toLowerCase() : id;
    const where = await this.store.resolveId(key);
    if (!where) return null;
    if (where.kind !== 'model') return undefined;
    if (write) await this.access.assertCanWrite(caller, where.project_id);
    else this.access.assertCanRead(caller, where.project_id);
    const model = await this.store.getModel(where.project_id, key);
    return model && model.deleted_at === null ? model : undefined;
  }
}
