import type {
  CheckpointRow,
  EventAppend,
  JobSuccess,
  LeasedJob,
  LeaseRequest,
  LogHistoryRow,
  TrainingEventRow,
  TrainingJobRow,
  TrainingModelRow,
  TrainingStore,
  WriteOutcome,
  TrainingWorkerRow,
  WorkerInference,
} from '../training-types.js';
import { SqlTrainingQueue } from './training-queue.js';
import { frag, raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';
import { bytesFromDb, checkpointFromDb, eventFromDb, jobFromDb, modelFromDb } from './training-rows.js';

const CHECKPOINT_COLUMNS = raw('project_id, model_id, id, step, metrics, trainer, created_at');

/**
 * The training store over any adapter's transaction runner (docs/spec/training.md §4–§6): models with
 * tombstones, checkpoints with their bytes, `/log` history; the queue part is SqlTrainingQueue.
 */
export class SqlTrainingStore implements TrainingStore {
  readonly #sql: SqlTag;
  readonly #queue: SqlTrainingQueue;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
    this.#queue = new SqlTrainingQueue(tx, dialect);
  }

  async resolveId(id: string): Promise<{ project_id: string; kind: 'model' | 'job' } | null> {
    const rows = await this.tx.read<{ project_id: string; kind: 'model' | 'job' }>(
      this.#sql`SELECT project_id, kind FROM training_ids WHERE id = ${id}`,
    );
    return rows[0] ?? null;
  }

  async getModel(projectId: string, id: string): Promise<TrainingModelRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM training_models WHERE project_id = ${projectId} AND id = ${id}`,
    );
    return rows.length === 0 ? null : modelFromDb(rows[0]!);
  }

  async getModelByName(projectId: string, name: string): Promise<TrainingModelRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this
        .#sql`SELECT * FROM training_models WHERE project_id = ${projectId} AND name = ${name} AND deleted_at IS NULL`,
    );
    return rows.length === 0 ? null : modelFromDb(rows[0]!);
  }

  async createModel(row: TrainingModelRow): Promise<{ model: TrainingModelRow; created: boolean }> {
    const sql = this.#sql;
    const attempt = () =>
      this.tx.transaction(function* () {
        const live = yield* all<Record<string, unknown>>(
          sql`SELECT * FROM training_models WHERE project_id = ${row.project_id} AND name = ${row.name} AND deleted_at IS NULL`,
        );
        if (live.length > 0) return { model: modelFromDb(live[0]!), created: false };
        const byId = yield* all<Record<string, unknown>>(
          sql`SELECT * FROM training_models WHERE project_id = ${row.project_id} AND id = ${row.id}`,
        );
        if (byId.length > 0) return { model: modelFromDb(byId[0]!), created: false };
        yield* run(sql`INSERT INTO training_ids (id, project_id, kind) VALUES (${row.id}, ${row.project_id}, 'model')`);
        yield* run(sql`INSERT INTO training_models (project_id, id, entity, project, name, base_model, run_id, created_by, created_at, deleted_at, last_step, trainer)
          VALUES (${row.project_id}, ${row.id}, ${row.entity}, ${row.project}, ${row.name}, ${row.base_model}, ${row.run_id}, ${row.created_by}, ${row.created_at}, NULL, 0, NULL)`);
        return { model: row, created: true };
      });
    try {
      return await attempt();
    } catch (error) {
      // Two nodes registered the same name or id at once: the second answer is the first's model.
      if (this.dialect.isUniqueViolation(error)) return attempt();
      throw error;
    }
  }

  async listModels(
    entities: string[] | null,
    project: string | null,
    afterId: string | null,
    limit: number,
  ): Promise<TrainingModelRow[]> {
    if (entities !== null && entities.length === 0) return [];
    const sql = this.#sql;
    const q = sql`SELECT * FROM training_models WHERE deleted_at IS NULL
      ${entities === null ? raw('') : frag`AND entity IN ${entities}`}
      ${project === null ? raw('') : frag`AND project = ${project}`}
      ${afterId === null ? raw('') : frag`AND id > ${afterId}`}
      ORDER BY id LIMIT ${limit}`;
    return (await this.tx.read<Record<string, unknown>>(q)).map(modelFromDb);
  }

  deleteModel(
    projectId: string,
    id: string,
    now: number,
    message: string,
    newId: () => string,
  ): Promise<{ deletedCheckpoints: number } | null> {
    const sql = this.#sql;
    const { dialect } = this;
    const queue = this.#queue;
    return this.tx.transaction(function* () {
      const model = yield* all<Record<string, unknown>>(sql`SELECT id FROM training_models
        WHERE project_id = ${projectId} AND id = ${id} AND deleted_at IS NULL ${raw(dialect.forUpdate)}`);
      if (model.length === 0) return null;
      const deletedCheckpoints = yield* run(
        sql`DELETE FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${id}`,
      );
      yield* run(sql`DELETE FROM training_log_history WHERE project_id = ${projectId} AND model_id = ${id}`);
      yield* run(sql`UPDATE training_models SET deleted_at = ${now} WHERE project_id = ${projectId} AND id = ${id}`);
      // §4.2: open jobs end with training_failed so pollers terminate.
      const open = yield* all<{ id: string }>(sql`SELECT id FROM training_jobs
        WHERE project_id = ${projectId} AND model_id = ${id} AND status IN ('queued', 'running') ORDER BY created_at`);
      for (const { id: jobId } of open) {
        const job = yield* queue.lockJob(projectId, jobId);
        if (job) yield* queue.finishJob(job, { message }, now, newId(), { error_message: message });
      }
      return { deletedCheckpoints };
    });
  }

  async listCheckpoints(
    projectId: string,
    modelId: string,
    afterStep: number | null,
    order: 'asc' | 'desc',
    limit: number,
  ): Promise<CheckpointRow[]> {
    const sql = this.#sql;
    const cursor =
      afterStep === null ? raw('') : order === 'asc' ? frag`AND step > ${afterStep}` : frag`AND step < ${afterStep}`;
    const q = sql`SELECT ${CHECKPOINT_COLUMNS} FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${modelId} ${cursor}
      ORDER BY step ${raw(order === 'asc' ? 'ASC' : 'DESC')} LIMIT ${limit}`;
    return (await this.tx.read<Record<string, unknown>>(q)).map(checkpointFromDb);
  }

  async checkpointStep(projectId: string, modelId: string, checkpointId: string): Promise<number | null> {
    const rows = await this.tx.read<{ step: unknown }>(this.#sql`SELECT step FROM training_checkpoints
      WHERE project_id = ${projectId} AND model_id = ${modelId} AND id = ${checkpointId}`);
    return rows.length === 0 ? null : Number(rows[0]!.step);
  }

  async getCheckpoint(projectId: string, modelId: string, step: number | null): Promise<CheckpointRow | null> {
    const sql = this.#sql;
    const q =
      step === null
        ? sql`SELECT ${CHECKPOINT_COLUMNS} FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${modelId} ORDER BY step DESC LIMIT 1`
        : sql`SELECT ${CHECKPOINT_COLUMNS} FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${modelId} AND step = ${step}`;
    const rows = await this.tx.read<Record<string, unknown>>(q);
    return rows.length === 0 ? null : checkpointFromDb(rows[0]!);
  }

  async checkpointData(projectId: string, modelId: string, checkpointId: string): Promise<Uint8Array | null> {
    const rows = await this.tx.read<{ data: unknown }>(this.#sql`SELECT data FROM training_checkpoints
      WHERE project_id = ${projectId} AND model_id = ${modelId} AND id = ${checkpointId}`);
    return rows.length === 0 ? null : bytesFromDb(rows[0]!.data);
  }

  deleteCheckpoints(projectId: string, modelId: string, steps: number[]): Promise<number[]> {
    if (steps.length === 0) return Promise.resolve([]);
    const sql = this.#sql;
    return this.tx.transaction(function* () {
      const found = yield* all<{ step: unknown }>(
        sql`SELECT step FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${modelId} AND step IN ${steps}`,
      );
      if (found.length > 0)
        yield* run(
          sql`DELETE FROM training_checkpoints WHERE project_id = ${projectId} AND model_id = ${modelId} AND step IN ${steps}`,
        );
      return found.map((r) => Number(r.step));
    });
  }

  appendLog(row: LogHistoryRow, replaceId: string | null = null): Promise<void> {
    const sql = this.#sql;
    const { dialect } = this;
    return this.tx.transaction(function* () {
      if (replaceId !== null)
        yield* run(sql`DELETE FROM training_log_history
          WHERE project_id = ${row.project_id} AND model_id = ${row.model_id} AND id = ${replaceId}`);
      yield* run(sql`INSERT INTO training_log_history (project_id, model_id, id, step, split, metrics, trajectory_groups, recorded_at)
        VALUES (${row.project_id}, ${row.model_id}, ${row.id}, ${row.step}, ${row.split}, ${row.metrics}, ${row.groups}, ${row.recorded_at})`);
      const current = yield* all<{ metrics: string }>(sql`SELECT metrics FROM training_checkpoints
        WHERE project_id = ${row.project_id} AND model_id = ${row.model_id} AND step = ${row.step} ${raw(dialect.forUpdate)}`);
      if (current.length === 0) return;
      // §4.5 step 4: later values overwrite earlier keys.
      const merged = {
        ...(JSON.parse(current[0]!.metrics) as Record<string, number>),
        ...(JSON.parse(row.metrics) as Record<string, number>),
      };
      yield* run(sql`UPDATE training_checkpoints SET metrics = ${JSON.stringify(merged)}
        WHERE project_id = ${row.project_id} AND model_id = ${row.model_id} AND step = ${row.step}`);
    });
  }

  async logRowsAt(projectId: string, modelId: string, split: string, step: number): Promise<LogHistoryRow[]> {
    // The model's history is small (one row per /log call or job): walking its key range is enough.
    const rows = await this.tx.read<Record<string, unknown>>(this.#sql`SELECT project_id, model_id, id, step, split,
      metrics, trajectory_groups, recorded_at FROM training_log_history
      WHERE project_id = ${projectId} AND model_id = ${modelId} AND split = ${split} AND step = ${step} ORDER BY id`);
    return rows.map((r) => historyRow(r, String(r.trajectory_groups)));
  }

  async listLogHistory(
    projectId: string,
    modelId: string,
    afterId: string | null,
    limit: number,
  ): Promise<LogHistoryRow[]> {
    const q = this.#sql`SELECT project_id, model_id, id, step, split, metrics, recorded_at FROM training_log_history
      WHERE project_id = ${projectId} AND model_id = ${modelId} ${afterId === null ? raw('') : frag`AND id > ${afterId}`}
      ORDER BY id LIMIT ${limit}`;
    const rows = await this.tx.read<Record<string, unknown>>(q);
    return rows.map((r) => historyRow(r, ''));
  }

  async listJobs(projectId: string, modelId: string, afterId: string | null, limit: number): Promise<TrainingJobRow[]> {
    // No (project_id, model_id) index over every job (005-training has only the open-jobs one): this
    // walks the project's jobs in primary-key order, fine for the UI's page sizes.
    const q = this.#sql`SELECT * FROM training_jobs WHERE project_id = ${projectId} AND model_id = ${modelId}
      ${afterId === null ? raw('') : frag`AND id > ${afterId}`} ORDER BY id LIMIT ${limit}`;
    return (await this.tx.read<Record<string, unknown>>(q)).map(jobFromDb);
  }

  createJob(row: TrainingJobRow): Promise<void> {
    const sql = this.#sql;
    return this.tx.transaction(function* (): Tx<void> {
      yield* run(sql`INSERT INTO training_ids (id, project_id, kind) VALUES (${row.id}, ${row.project_id}, 'job')`);
      yield* run(sql`INSERT INTO training_jobs (project_id, id, model_id, kind, status, base_model, created_by, created_at, started_at, finished_at,
          parent_step, step, checkpoint_id, num_sequences, num_gradient_steps, error_message, input, trainer, lease_owner, lease_expires_at, fencing_token, metrics)
        VALUES (${row.project_id}, ${row.id}, ${row.model_id}, ${row.kind}, 'queued', ${row.base_model}, ${row.created_by}, ${row.created_at}, NULL, NULL,
          NULL, NULL, NULL, NULL, 0, NULL, ${row.input}, NULL, NULL, NULL, 0, NULL)`);
    });
  }

  async getJob(projectId: string, id: string): Promise<TrainingJobRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM training_jobs WHERE project_id = ${projectId} AND id = ${id}`,
    );
    return rows.length === 0 ? null : jobFromDb(rows[0]!);
  }

  async listEvents(
    projectId: string,
    jobId: string,
    afterSeq: number | null,
    limit: number,
  ): Promise<TrainingEventRow[]> {
    const sql = this.#sql;
    const q = sql`SELECT * FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId}
      ${afterSeq === null ? raw('') : frag`AND seq > ${afterSeq}`} ORDER BY seq LIMIT ${limit}`;
    return (await this.tx.read<Record<string, unknown>>(q)).map(eventFromDb);
  }

  async eventSeq(projectId: string, jobId: string, eventId: string): Promise<number | null> {
    const rows = await this.tx.read<{ seq: unknown }>(
      this
        .#sql`SELECT seq FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId} AND id = ${eventId}`,
    );
    return rows.length === 0 ? null : Number(rows[0]!.seq);
  }

  leaseJob(request: LeaseRequest): Promise<LeasedJob | null> {
    return this.#queue.leaseJob(request);
  }

  heartbeat(projectId: string, jobId: string, token: number, now: number, leaseMicros: number): Promise<boolean> {
    return this.#queue.heartbeat(projectId, jobId, token, now, leaseMicros);
  }

  appendEvent(
    projectId: string,
    jobId: string,
    token: number,
    event: EventAppend,
  ): Promise<WriteOutcome<TrainingEventRow>> {
    return this.#queue.appendEvent(projectId, jobId, token, event);
  }

  completeJob(
    projectId: string,
    jobId: string,
    token: number,
    success: JobSuccess,
  ): Promise<WriteOutcome<{ step: number }>> {
    return this.#queue.completeJob(projectId, jobId, token, success);
  }

  failJob(
    projectId: string,
    jobId: string,
    token: number | null,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<null>> {
    return this.#queue.failJob(projectId, jobId, token, message, now, eventId);
  }

  releaseJob(
    projectId: string,
    jobId: string,
    token: number,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<{ requeued: boolean }>> {
    return this.#queue.releaseJob(projectId, jobId, token, message, now, eventId);
  }

  sweep(
    now: number,
    queuedBefore: number,
    messages: { leaseExpired: string; queueTimeout: string },
    newId: () => string,
  ): Promise<number> {
    return this.#queue.sweep(now, queuedBefore, messages, newId);
  }

  async recordWorker(
    workerId: string,
    baseModels: string[],
    now: number,
    inference: WorkerInference | null = null,
  ): Promise<void> {
    const sql = this.#sql;
    const url = inference?.url ?? null;
    const token = inference?.token ?? null;
    await this.tx.transaction(function* () {
      yield* run(sql`INSERT INTO training_workers (worker_id, base_models, last_seen, inference_url, inference_token)
        VALUES (${workerId}, ${JSON.stringify(baseModels)}, ${now}, ${url}, ${token})
        ON CONFLICT (worker_id) DO UPDATE SET base_models = excluded.base_models, last_seen = excluded.last_seen,
          inference_url = excluded.inference_url, inference_token = excluded.inference_token`);
    });
  }

  async touchWorker(workerId: string, now: number): Promise<void> {
    const sql = this.#sql;
    await this.tx.transaction(function* () {
      yield* run(
        sql`UPDATE training_workers SET last_seen = ${now} WHERE worker_id = ${workerId} AND last_seen < ${now}`,
      );
    });
  }

  async liveWorkers(since: number): Promise<TrainingWorkerRow[]> {
    const rows = await this.tx.read<{
      worker_id: string;
      base_models: string;
      last_seen: number | string;
      inference_url: string | null;
      inference_token: string | null;
    }>(
      this.#sql`SELECT worker_id, base_models, last_seen, inference_url, inference_token FROM training_workers
        WHERE last_seen >= ${since} ORDER BY last_seen DESC, worker_id`,
    );
    return rows.map((r) => ({
      worker_id: r.worker_id,
      base_models: JSON.parse(r.base_models) as string[],
      last_seen: Number(r.last_seen),
      inference:
        r.inference_url !== null && r.inference_token !== null
          ? { url: r.inference_url, token: r.inference_token }
          : null,
    }));
  }

  async liveWorkerModels(since: number): Promise<string[]> {
    const rows = await this.tx.read<{ base_models: string }>(
      this.#sql`SELECT base_models FROM training_workers WHERE last_seen >= ${since}`,
    );
    return [...new Set(rows.flatMap((r) => JSON.parse(r.base_models) as string[]))];
  }

  async ping(): Promise<void> {
    await this.tx.read(this.#sql`SELECT 1 AS ok`);
  }
}

/** A `training_log_history` row; `groups` is read only where it is asked for. */
function historyRow(r: Record<string, unknown>, groups: string): LogHistoryRow {
  return {
    project_id: String(r.project_id),
    model_id: String(r.model_id),
    id: String(r.id),
    step: Number(r.step),
    split: String(r.split),
    metrics: String(r.metrics),
    groups,
    recorded_at: Number(r.recorded_at),
  };
}
