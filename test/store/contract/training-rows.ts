import { uuidv7 } from '../../../src/domain/ids.js';
import type { TrainingJobRow, TrainingModelRow } from '../../../src/store/training-types.js';

/** Rows for training store tests: a fresh model of a base model, and a queued job of it. */
export function model(projectId: string, base: string, name = 'm'): TrainingModelRow {
  const [entity = '', project = ''] = projectId.split('/');
  return {
    project_id: projectId,
    id: uuidv7(),
    entity,
    project,
    name,
    base_model: base,
    run_id: null,
    created_by: 'u',
    created_at: 1,
    deleted_at: null,
    last_step: 0,
    trainer: null,
  };
}

export function job(m: TrainingModelRow, createdAt: number): TrainingJobRow {
  return {
    project_id: m.project_id,
    id: uuidv7(),
    model_id: m.id,
    kind: 'rl',
    status: 'queued',
    base_model: m.base_model,
    created_by: 'u',
    created_at: createdAt,
    started_at: null,
    finished_at: null,
    parent_step: null,
    step: null,
    checkpoint_id: null,
    num_sequences: null,
    num_gradient_steps: 0,
    error_message: null,
    input: '{}',
    trainer: null,
    lease_owner: null,
    lease_expires_at: null,
    fencing_token: 0,
    metrics: null,
  };
}
