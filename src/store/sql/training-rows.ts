import type { CheckpointRow, TrainingEventRow, TrainingJobRow, TrainingModelRow } from '../training-types.js';

/**
 * Row mapping of the training tables (backends may hand integers back as strings and bytes as
 * Buffers) and the event types that end a job.
 */

export const TERMINAL_TYPES = ['training_ended', 'training_failed'] as const;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function modelFromDb(r: Record<string, unknown>): TrainingModelRow {
  return {
    project_id: String(r.project_id),
    id: String(r.id),
    entity: String(r.entity),
    project: String(r.project),
    name: String(r.name),
    base_model: String(r.base_model),
    run_id: (r.run_id as string | null) ?? null,
    created_by: String(r.created_by),
    created_at: num(r.created_at),
    deleted_at: numOrNull(r.deleted_at),
    last_step: num(r.last_step),
    trainer: (r.trainer as string | null) ?? null,
  };
}

export function checkpointFromDb(r: Record<string, unknown>): CheckpointRow {
  return {
    project_id: String(r.project_id),
    model_id: String(r.model_id),
    id: String(r.id),
    step: num(r.step),
    metrics: String(r.metrics),
    trainer: (r.trainer as string | null) ?? null,
    created_at: num(r.created_at),
  };
}

export function jobFromDb(r: Record<string, unknown>): TrainingJobRow {
  return {
    project_id: String(r.project_id),
    id: String(r.id),
    model_id: String(r.model_id),
    kind: r.kind as TrainingJobRow['kind'],
    status: r.status as TrainingJobRow['status'],
    base_model: String(r.base_model),
    created_by: String(r.created_by),
    created_at: num(r.created_at),
    started_at: numOrNull(r.started_at),
    finished_at: numOrNull(r.finished_at),
    parent_step: numOrNull(r.parent_step),
    step: numOrNull(r.step),
    checkpoint_id: (r.checkpoint_id as string | null) ?? null,
    num_sequences: numOrNull(r.num_sequences),
    num_gradient_steps: num(r.num_gradient_steps),
    error_message: (r.error_message as string | null) ?? null,
    input: String(r.input),
    trainer: (r.trainer as string | null) ?? null,
    lease_owner: (r.lease_owner as string | null) ?? null,
    lease_expires_at: numOrNull(r.lease_expires_at),
    fencing_token: num(r.fencing_token),
    metrics: (r.metrics as string | null) ?? null,
  };
}

export function eventFromDb(r: Record<string, unknown>): TrainingEventRow {
  return {
    project_id: String(r.project_id),
    job_id: String(r.job_id),
    seq: num(r.seq),
    id: String(r.id),
    type: r.type as TrainingEventRow['type'],
    data: String(r.data),
    created_at: num(r.created_at),
  };
}

/** Bytes as the contract hands them out (a Buffer is a Uint8Array already). */
export function bytesFromDb(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return v;
  throw new Error('checkpoint data is not binary');
}
