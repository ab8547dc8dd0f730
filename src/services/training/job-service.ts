import { NotFoundError, RequestValidationError } from '../../errors/app-error.js';
import { uuidv7 } from '../../domain/ids.js';
import { formatMicros, nowMicros } from '../../domain/time.js';
import type { JobKind, TrainingJobRow, TrainingModelRow, TrainingStore } from '../../store/training-types.js';
import { effectiveTrainingConfig } from '../../training/objective/effective-config.js';
import type { Caller } from '../auth-service.js';
import type { ProjectAccess } from '../project-access.js';
import type { ModelLookup } from './model-lookup.js';
import { normalizeGroups } from './normalize-groups.js';
import { bodyUuid, parseLimit, toPage, unknownAfter, type Page } from './paging.js';

/** What a job row's `input` holds (JSON), per kind. */
export interface RlJobInput {
  trajectory_groups: unknown[];
  experimental_config: Record<string, unknown> | null;
}

export interface SftJobInput {
  training_data_url: string;
  config: Record<string, unknown> | null;
  experimental_config: Record<string, unknown> | null;
}

const fmt = (micros: number | null): string | null => (micros === null ? null : formatMicros(micros));

/** §4.7: the superset view of a job, with the effective config and the trainer that ran it. */
export function jobView(job: TrainingJobRow): Record<string, unknown> {
  const input = JSON.parse(job.input) as Partial<RlJobInput & SftJobInput>;
  const raw = input.experimental_config ?? null;
  return {
    id: job.id,
    model_id: job.model_id,
    kind: job.kind,
    status: job.status,
    created_at: fmt(job.created_at),
    started_at: fmt(job.started_at),
    finished_at: fmt(job.finished_at),
    parent_step: job.parent_step,
    step: job.step,
    checkpoint_id: job.checkpoint_id,
    num_sequences: job.num_sequences,
    num_gradient_steps: job.num_gradient_steps,
    error_message: job.error_message,
    experimental_config: job.kind === 'rl' ? effectiveTrainingConfig(raw, job.trainer) : (raw ?? {}),
    base_model: job.base_model,
    trainer: job.trainer,
    metrics: job.metrics === null ? null : JSON.parse(job.metrics),
  };
}

/** RL and SFT job creation, job read and events (docs/spec/training.md §4.6–§4.9). */
export class TrainingJobService {
  constructor(
    private readonly store: TrainingStore,
    private readonly access: ProjectAccess,
    private readonly lookup: ModelLookup,
    /** Wakes this node's runner so a new job starts without waiting for the next poll. */
    private readonly onQueued: () => void,
  ) {}

  async createRl(
    caller: Caller,
    body: { model_id: string; trajectory_groups: unknown[]; experimental_config?: Record<string, unknown> | null },
  ): Promise<{ id: string }> {
    const modelId = bodyUuid('model_id', body.model_id);
    const model = await this.lookup.liveOrRegister(caller, modelId);
    const input: RlJobInput = {
      trajectory_groups: normalizeGroups(body.trajectory_groups),
      experimental_config: body.experimental_config ?? null,
    };
    return this.#enqueue(caller, model, 'rl', input);
  }

  async createSft(
    caller: Caller,
    body: {
      model_id: string;
      training_data_url?: string;
      training_folder_url?: string;
      config?: Record<string, unknown> | null;
      experimental_config?: Record<string, unknown> | null;
    },
  ): Promise<{ id: string }> {
    const url = body.training_data_url ?? body.training_folder_url;
    if (url === undefined) {
      throw new RequestValidationError([
        { loc: ['body', 'training_data_url'], msg: 'Field required', type: 'missing', input: body },
      ]);
    }
    const modelId = bodyUuid('model_id', body.model_id);
    const model = await this.lookup.liveOrRegister(caller, modelId);
    const input: SftJobInput = {
      training_data_url: url,
      config: body.config ?? null,
      experimental_config: body.experimental_config ?? null,
    };
    return this.#enqueue(caller, model, 'sft', input);
  }

  async #enqueue(
    caller: Caller,
    model: TrainingModelRow,
    kind: JobKind,
    input: RlJobInput | SftJobInput,
  ): Promise<{ id: string }> {
    const id = uuidv7();
    await this.store.createJob({
      project_id: model.project_id,
      id,
      model_id: model.id,
      kind,
      status: 'queued',
      base_model: model.base_model,
      created_by: caller.userId,
      created_at: nowMicros(),
      started_at: null,
      finished_at: null,
      parent_step: null,
      step: null,
      checkpoint_id: null,
      num_sequences: null,
      num_gradient_steps: 0,
      error_message: null,
      input: JSON.stringify(input),
      trainer: null,
      lease_owner: null,
      lease_expires_at: null,
      fencing_token: 0,
      metrics: null,
    });
    this.onQueued();
    return { id };
  }

  /** The job row for a path id: 404 unknown, 403 another entity's. */
  async job(caller: Caller, id: string): Promise<TrainingJobRow> {
    const key = id.toLowerCase();
    const where = await this.store.resolveId(key);
    if (!where || where.kind !== 'job') throw new NotFoundError('Training job not found');
    this.access.assertCanRead(caller, where.project_id);
    const job = await this.store.getJob(where.project_id, key);
    if (!job) throw new NotFoundError('Training job not found');
    return job;
  }

  async get(caller: Caller, id: string): Promise<Record<string, unknown>> {
    return jobView(await this.job(caller, id));
  }

  /** §4.8: always ascending; `after` exclusive. */
  async events(
    caller: Caller,
    id: string,
    q: { after?: string; limit?: string },
  ): Promise<Page<{ id: string; type: string; data: unknown }>> {
    const limit = parseLimit(q.limit);
    const job = await this.job(caller, id);
    let afterSeq: number | null = null;
    if (q.after !== undefined) {
      afterSeq = await this.store.eventSeq(job.project_id, job.id, q.after.toLowerCase());
      if (afterSeq === null) throw unknownAfter(q.after);
    }
    const rows = await this.store.listEvents(job.project_id, job.id, afterSeq, limit + 1);
    return toPage(rows, limit, (e) => ({ id: e.id, type: e.type, data: JSON.parse(e.data) as unknown }));
  }
}
