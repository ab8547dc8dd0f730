import type {
  EventAppend,
  JobSuccess,
  LeasedJob,
  LeaseRequest,
  TrainingEventRow,
  TrainingJobRow,
  WriteOutcome,
} from '../training-types.js';
import { frag, Fragment, raw, Raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { all, run, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';
import { eventFromDb, jobFromDb, TERMINAL_TYPES } from './training-rows.js';

/**
 * The durable job queue (docs/spec/training.md §6): leases with fencing tokens, events appended only by
 * the current lease holder, exactly one terminal event per job. Every state change is one
 * transaction that first locks the job row and re-checks its state, so API nodes, sweepers and
 * external workers may race freely.
 */
/**
 * Head-of-queue jobs a lease looks at. They are read without a lock (a locking scan across projects
 * cannot run on Citus), then locked one at a time by key, skipping those another lease holds.
 */
const LEASE_CANDIDATES = 16;

export class SqlTrainingQueue {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  /** The job row, locked for the rest of the transaction. */
  *lockJob(projectId: string, jobId: string): Tx<TrainingJobRow | null> {
    const sql = this.#sql;
    const rows = yield* all<Record<string, unknown>>(
      sql`SELECT * FROM training_jobs WHERE project_id = ${projectId} AND id = ${jobId} ${raw(this.dialect.forUpdate)}`,
    );
    return rows.length === 0 ? null : jobFromDb(rows[0]!);
  }

  /** Appends an event at the next sequence number unless the stream already ended. */
  *insertEvent(projectId: string, jobId: string, e: EventAppend): Tx<TrainingEventRow | null> {
    const sql = this.#sql;
    const [state] = yield* all<{ last: unknown; ended: unknown }>(sql`SELECT COALESCE(MAX(seq), 0) AS last,
      SUM(CASE WHEN type IN ${[...TERMINAL_TYPES]} THEN 1 ELSE 0 END) AS ended
      FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId}`);
    if (Number(state?.ended ?? 0) > 0) return null;
    const seq = Number(state?.last ?? 0) + 1;
    if (e.seq !== undefined && e.seq !== seq) return null;
    const row: TrainingEventRow = {
      project_id: projectId,
      job_id: jobId,
      seq,
      id: e.id,
      type: e.type,
      data: e.data,
      created_at: e.created_at,
    };
    yield* run(sql`INSERT INTO training_events (project_id, job_id, seq, id, type, data, created_at)
      VALUES (${projectId}, ${jobId}, ${seq}, ${e.id}, ${e.type}, ${e.data}, ${e.created_at})`);
    return row;
  }

  /**
   * Moves an open job to a terminal state and appends its terminal event in the same write;
   * false when the job was already finished (terminal states never change, §6.1).
   */
  *finishJob(
    job: TrainingJobRow,
    failure: { message: string } | null,
    now: number,
    eventId: string,
    data: Record<string, unknown>,
    set: Partial<TrainingJobRow> = {},
  ): Tx<boolean> {
    const sql = this.#sql;
    const status = failure ? 'failed' : 'succeeded';
    const changed =
      yield* run(sql`UPDATE training_jobs SET status = ${status}, finished_at = ${now}, lease_owner = NULL, lease_expires_at = NULL,
      error_message = ${failure?.message ?? null}, step = ${set.step ?? null}, checkpoint_id = ${set.checkpoint_id ?? null},
      metrics = ${set.metrics ?? null}, num_gradient_steps = ${set.num_gradient_steps ?? job.num_gradient_steps}
      WHERE project_id = ${job.project_id} AND id = ${job.id} AND status IN ('queued', 'running')`);
    if (changed !== 1) return false;
    const type = failure ? 'training_failed' : 'training_ended';
    const event = yield* this.insertEvent(job.project_id, job.id, {
      id: eventId,
      type,
      data: JSON.stringify(data),
      created_at: now,
    });
    if (event === null) throw new Error(`job ${job.id} already has a terminal event`);
    return true;
  }

  leaseJob(r: LeaseRequest): Promise<LeasedJob | null> {
    const sql = this.#sql;
    const include =
      r.filter.include === null
        ? raw('')
        : r.filter.include.length === 0
          ? raw('AND 1 = 0')
          : frag`AND j.base_model IN ${r.filter.include}`;
    const exclude = r.filter.exclude.length === 0 ? raw('') : frag`AND j.base_model NOT IN ${r.filter.exclude}`;
    const entities = entityFilter(r.filter.entities ?? null);
    const self = this;
    return this.#withUniqueRetry(() =>
      this.tx.transaction(function* () {
        const q = sql`SELECT j.project_id, j.id FROM training_jobs j
          WHERE j.status = 'queued' ${include} ${exclude} ${entities}
          AND NOT EXISTS (SELECT 1 FROM training_jobs o WHERE o.project_id = j.project_id AND o.model_id = j.model_id
            AND (o.status = 'running' OR (o.status = 'queued' AND (o.created_at < j.created_at OR (o.created_at = j.created_at AND o.id < j.id)))))
          ORDER BY j.created_at, j.id LIMIT ${LEASE_CANDIDATES}`;
        for (const candidate of yield* all<{ project_id: string; id: string }>(q)) {
          const leased = yield* self.#claim(candidate.project_id, candidate.id, r);
          if (leased !== null) return leased;
        }
        return null;
      }),
    );
  }

  *#claim(projectId: string, jobId: string, r: LeaseRequest): Tx<LeasedJob | null> {
    const sql = this.#sql;
    const rows = yield* all<Record<string, unknown>>(sql`SELECT * FROM training_jobs
      WHERE project_id = ${projectId} AND id = ${jobId} AND status = 'queued' ${raw(this.dialect.claim)}`);
    if (rows.length === 0) return null;
    const job = jobFromDb(rows[0]!);
    const parent = yield* all<{ id: string; step: unknown }>(sql`SELECT id, step FROM training_checkpoints
      WHERE project_id = ${projectId} AND model_id = ${job.model_id} ORDER BY step DESC LIMIT 1`);
    const parentStep = parent.length === 0 ? 0 : Number(parent[0]!.step);
    const changed =
      yield* run(sql`UPDATE training_jobs SET status = 'running', started_at = ${r.now}, parent_step = ${parentStep},
      lease_owner = ${r.owner}, lease_expires_at = ${r.now + r.leaseMicros}, fencing_token = fencing_token + 1, trainer = ${r.trainer}
      WHERE project_id = ${projectId} AND id = ${jobId} AND status = 'queued'`);
    if (changed !== 1) return null;
    const leased = yield* this.lockJob(projectId, jobId);
    return { job: leased!, parentStep, parentCheckpointId: parent.length === 0 ? null : parent[0]!.id };
  }

  /** PostgreSQL: a concurrent lease of the same model's head job trips the one-running index; that lease simply finds nothing. */
  async #withUniqueRetry<T>(work: () => Promise<T | null>): Promise<T | null> {
    try {
      return await work();
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) return null;
      throw error;
    }
  }

  async heartbeat(projectId: string, jobId: string, token: number, now: number, leaseMicros: number): Promise<boolean> {
    const sql = this.#sql;
    const changed = await this.tx.transaction(function* () {
      return yield* run(sql`UPDATE training_jobs SET lease_expires_at = ${now + leaseMicros}
        WHERE project_id = ${projectId} AND id = ${jobId} AND status = 'running' AND fencing_token = ${token}`);
    });
    return changed === 1;
  }

  appendEvent(
    projectId: string,
    jobId: string,
    token: number,
    e: EventAppend,
  ): Promise<WriteOutcome<TrainingEventRow>> {
    if ((TERMINAL_TYPES as readonly string[]).includes(e.type))
      throw new Error('terminal events are written by completeJob/failJob');
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* (): Tx<WriteOutcome<TrainingEventRow>> {
      const job = yield* self.lockJob(projectId, jobId);
      if (!job) return { ok: false, reason: 'not_found' };
      if (e.seq !== undefined) {
        // A retried post of a stored event answers the stored event (worker protocol idempotency).
        const same = yield* all<Record<string, unknown>>(
          sql`SELECT * FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId} AND seq = ${e.seq}`,
        );
        if (same.length > 0) {
          const stored = eventFromDb(same[0]!);
          if (stored.type === e.type) return { ok: true, value: stored };
          return {
            ok: false,
            reason: (TERMINAL_TYPES as readonly string[]).includes(stored.type) ? 'finished' : 'out_of_order',
          };
        }
      }
      if (job.status !== 'running') return { ok: false, reason: job.status === 'queued' ? 'stale' : 'finished' };
      if (job.fencing_token !== token) return { ok: false, reason: 'stale' };
      const started = yield* all<{ n: unknown }>(
        sql`SELECT COUNT(*) AS n FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId} AND type = 'training_started'`,
      );
      const hasStarted = Number(started[0]?.n ?? 0) > 0;
      // §6.2: one training_started, before every gradient_step.
      if (e.type === 'training_started' ? hasStarted : !hasStarted) return { ok: false, reason: 'out_of_order' };
      const row = yield* self.insertEvent(projectId, jobId, e);
      if (row === null) return { ok: false, reason: 'out_of_order' };
      const data = JSON.parse(e.data) as Record<string, unknown>;
      if (e.type === 'training_started') {
        yield* run(
          sql`UPDATE training_jobs SET num_sequences = ${Math.trunc(Number(data.num_sequences ?? 0))} WHERE project_id = ${projectId} AND id = ${jobId}`,
        );
      } else {
        yield* run(
          sql`UPDATE training_jobs SET num_gradient_steps = num_gradient_steps + 1 WHERE project_id = ${projectId} AND id = ${jobId}`,
        );
      }
      return { ok: true, value: row };
    });
  }

  completeJob(projectId: string, jobId: string, token: number, s: JobSuccess): Promise<WriteOutcome<{ step: number }>> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* (): Tx<WriteOutcome<{ step: number }>> {
      const job = yield* self.lockJob(projectId, jobId);
      if (!job) return { ok: false, reason: 'not_found' };
      if (job.status === 'succeeded' || job.status === 'failed') return { ok: false, reason: 'finished' };
      if (job.status !== 'running' || job.fencing_token !== token) return { ok: false, reason: 'stale' };
      const models = yield* all<{
        last_step: unknown;
        deleted_at: unknown;
      }>(sql`SELECT last_step, deleted_at FROM training_models
        WHERE project_id = ${projectId} AND id = ${job.model_id} ${raw(self.dialect.forUpdate)}`);
      if (models.length === 0 || models[0]!.deleted_at !== null) return { ok: false, reason: 'finished' };
      const step = Number(models[0]!.last_step) + 1;
      // §6.5: training metrics also land on the new checkpoint under `train/`.
      const metrics = Object.fromEntries(
        Object.entries(s.metrics)
          .filter(([, v]) => Number.isFinite(v))
          .map(([k, v]) => [`train/${k}`, v]),
      );
      yield* run(sql`INSERT INTO training_checkpoints (project_id, model_id, step, id, metrics, trainer, data, created_at)
        VALUES (${projectId}, ${job.model_id}, ${step}, ${s.checkpointId}, ${JSON.stringify(metrics)}, ${job.trainer}, ${Buffer.from(s.checkpoint)}, ${s.now})`);
      yield* run(
        sql`UPDATE training_models SET last_step = ${step}, trainer = ${job.trainer} WHERE project_id = ${projectId} AND id = ${job.model_id}`,
      );
      if (s.history)
        yield* run(sql`INSERT INTO training_log_history (project_id, model_id, id, step, split, metrics, trajectory_groups, recorded_at)
          VALUES (${projectId}, ${job.model_id}, ${s.history.id}, ${step}, ${s.history.split}, ${s.history.metrics}, ${s.history.groups}, ${s.now})`);
      const done = yield* self.finishJob(
        job,
        null,
        s.now,
        s.eventId,
        { step, checkpoint_id: s.checkpointId, num_gradient_steps: s.numGradientSteps },
        {
          step,
          checkpoint_id: s.checkpointId,
          metrics: JSON.stringify(s.metrics),
          num_gradient_steps: s.numGradientSteps,
        },
      );
      if (!done) throw new Error(`job ${jobId} could not be finished`);
      return { ok: true, value: { step } };
    });
  }

  failJob(
    projectId: string,
    jobId: string,
    token: number | null,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<null>> {
    const self = this;
    return this.tx.transaction(function* (): Tx<WriteOutcome<null>> {
      const job = yield* self.lockJob(projectId, jobId);
      if (!job) return { ok: false, reason: 'not_found' };
      if (job.status === 'succeeded' || job.status === 'failed') return { ok: false, reason: 'finished' };
      if (token !== null && (job.status !== 'running' || job.fencing_token !== token))
        return { ok: false, reason: 'stale' };
      yield* self.finishJob(job, { message }, now, eventId, { error_message: message });
      return { ok: true, value: null };
    });
  }

  /**
   * A worker hands a job back (it is stopping). Before any event of the job was published the job is
   * queued again as it was, for the next lease (a new fencing token then); after one, it fails with
   * `message`: clients have read those events and they cannot be retracted (as for lease expiry).
   */
  releaseJob(
    projectId: string,
    jobId: string,
    token: number,
    message: string,
    now: number,
    eventId: string,
  ): Promise<WriteOutcome<{ requeued: boolean }>> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* (): Tx<WriteOutcome<{ requeued: boolean }>> {
      const job = yield* self.lockJob(projectId, jobId);
      if (!job) return { ok: false, reason: 'not_found' };
      if (job.status === 'succeeded' || job.status === 'failed') return { ok: false, reason: 'finished' };
      if (job.status !== 'running' || job.fencing_token !== token) return { ok: false, reason: 'stale' };
      const [events] = yield* all<{ n: unknown }>(
        sql`SELECT COUNT(*) AS n FROM training_events WHERE project_id = ${projectId} AND job_id = ${jobId}`,
      );
      if (Number(events?.n ?? 0) > 0) {
        yield* self.finishJob(job, { message }, now, eventId, { error_message: message });
        return { ok: true, value: { requeued: false } };
      }
      yield* run(sql`UPDATE training_jobs SET status = 'queued', started_at = NULL, parent_step = NULL, trainer = NULL,
        lease_owner = NULL, lease_expires_at = NULL
        WHERE project_id = ${projectId} AND id = ${jobId} AND status = 'running' AND fencing_token = ${token}`);
      return { ok: true, value: { requeued: true } };
    });
  }

  /**
   * A queued job waits for a trainer only while it heads its model's queue: a job behind a running
   * one is not starved. Its wait counts from its creation or, when later, from the end of the
   * model's previous job. `j` is the job; the condition holds when it is a stale head.
   */
  #staleHead(queuedBefore: number): Fragment {
    return frag`j.status = 'queued' AND j.created_at < ${queuedBefore}
      AND NOT EXISTS (SELECT 1 FROM training_jobs o WHERE o.project_id = j.project_id AND o.model_id = j.model_id AND (o.status = 'running'
        OR (o.status = 'queued' AND (o.created_at < j.created_at OR (o.created_at = j.created_at AND o.id < j.id)))
        OR (o.finished_at IS NOT NULL AND o.finished_at >= ${queuedBefore})))`;
  }

  async sweep(
    now: number,
    queuedBefore: number,
    messages: { leaseExpired: string; queueTimeout: string },
    newId: () => string,
  ): Promise<number> {
    const sql = this.#sql;
    const due = await this.tx.read<{
      project_id: string;
      id: string;
    }>(sql`SELECT j.project_id, j.id FROM training_jobs j
      WHERE (j.status = 'running' AND j.lease_expires_at < ${now}) OR (${this.#staleHead(queuedBefore)})
      ORDER BY j.created_at LIMIT 100`);
    let failed = 0;
    for (const candidate of due)
      failed += await this.#sweepOne(candidate.project_id, candidate.id, now, queuedBefore, messages, newId);
    return failed;
  }

  /** Re-checked under the row lock: another node's sweeper, a lease or a heartbeat may have won. */
  #sweepOne(
    projectId: string,
    jobId: string,
    now: number,
    queuedBefore: number,
    messages: { leaseExpired: string; queueTimeout: string },
    newId: () => string,
  ): Promise<number> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      const job = yield* self.lockJob(projectId, jobId);
      if (!job) return 0;
      if (job.status === 'running' && job.lease_expires_at !== null && job.lease_expires_at < now) {
        return (yield* self.finishJob(job, { message: messages.leaseExpired }, now, newId(), {
          error_message: messages.leaseExpired,
        }))
          ? 1
          : 0;
      }
      const stale = yield* all<{ id: string }>(
        sql`SELECT j.id FROM training_jobs j WHERE j.project_id = ${projectId} AND j.id = ${jobId} AND ${self.#staleHead(queuedBefore)}`,
      );
      if (stale.length === 0) return 0;
      // No trainer serves this model's base model: the jobs queued behind it would starve too.
      const message = messages.queueTimeout.replace('{base_model}', job.base_model);
      const queued = yield* all<{ id: string }>(
        sql`SELECT id FROM training_jobs WHERE project_id = ${projectId} AND model_id = ${job.model_id} AND status = 'queued' ORDER BY created_at, id`,
      );
      let n = 0;
      for (const { id } of queued) {
        const row = yield* self.lockJob(projectId, id);
        if (row && (yield* self.finishJob(row, { message }, now, newId(), { error_message: message }))) n += 1;
      }
      return n;
    });
  }
}

/** Project ids of an entity are the ids from `entity/` up to `entity0` ('0' follows '/'), compared by bytes. */
function entityFilter(entities: string[] | null): Raw | Fragment {
  if (entities === null) return raw('');
  if (entities.length === 0) return raw('AND 1 = 0');
  const ranges = entities.map((e) => frag`(j.project_id >= ${`${e}/`} AND j.project_id < ${`${e}0`})`);
  const joined = new Fragment(['AND (', ...ranges.slice(1).map(() => ' OR '), ')'], ranges);
  return joined;
}
