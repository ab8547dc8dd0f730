import type {
  BackgroundJobRow,
  BackgroundJobStatus,
  JobLeaseRequest,
  JobStore,
  JobSweepResult,
  JobWriteOutcome,
  NewBackgroundJob,
} from '../job-types.js';
import { type CompiledSql, raw, sqlTag, type SqlTag } from './core/sql-tag.js';
import { num, numOrNull, rowDecoder, text, textOf, textOrNull } from './row-decode.js';
import { all, run, runAll, type Tx, type TxDialect, type TxRunner } from './core/sql-tx.js';

const jobFromDb = rowDecoder<BackgroundJobRow>({
  project_id: text,
  id: text,
  kind: text,
  status: textOf<BackgroundJobStatus>(),
  input: text,
  created_by: text,
  created_at: num,
  started_at: numOrNull,
  finished_at: numOrNull,
  attempts: num,
  max_attempts: num,
  error_message: textOrNull,
  lease_owner: textOrNull,
  lease_expires_at: numOrNull,
  fencing_token: num,
});

/** The statement that stores a queued job (also used by stores that enqueue in their own transaction). */
export function insertJobSql(sql: SqlTag, j: NewBackgroundJob): CompiledSql {
  return sql`INSERT INTO background_jobs (project_id, id, kind, status, input, created_by, created_at, attempts, max_attempts, fencing_token)
    VALUES (${j.project_id}, ${j.id}, ${j.kind}, 'queued', ${j.input}, ${j.created_by}, ${j.created_at}, 0, ${j.max_attempts}, 0)`;
}

/**
 * The background job queue over any adapter's transaction runner: the lease protocol of the
 * training queue (training-queue.ts: a claim that skips rows locked by a concurrent claim, a fencing
 * token bumped by every lease, every state change re-checked under the row lock) on its own table
 * `background_jobs`, without the training rules (one running job per model, events, checkpoints).
 * Unlike training, a job whose holder vanished is queued again: its handlers are resumable.
 */
/**
 * Oldest queued jobs a lease looks at. They are read without a lock (a locking scan across projects
 * cannot run on Citus), then locked one at a time by key, skipping those another lease holds.
 */
const LEASE_CANDIDATES = 16;

export class SqlJobStore implements JobStore {
  readonly #sql: SqlTag;

  constructor(
    private readonly tx: TxRunner,
    private readonly dialect: TxDialect,
  ) {
    this.#sql = sqlTag(dialect.d);
  }

  *#lock(projectId: string, id: string): Tx<BackgroundJobRow | null> {
    const rows = yield* all<Record<string, unknown>>(
      this
        .#sql`SELECT * FROM background_jobs WHERE project_id = ${projectId} AND id = ${id} ${raw(this.dialect.forUpdate)}`,
    );
    const row = rows[0];
    return row === undefined ? null : jobFromDb(row);
  }

  async enqueue(jobs: readonly NewBackgroundJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const sql = this.#sql;
    const inserts = jobs.map((j) => insertJobSql(sql, j));
    await this.tx.transaction(function* () {
      yield* runAll(inserts);
    });
  }

  async get(projectId: string, id: string): Promise<BackgroundJobRow | null> {
    const rows = await this.tx.read<Record<string, unknown>>(
      this.#sql`SELECT * FROM background_jobs WHERE project_id = ${projectId} AND id = ${id}`,
    );
    const row = rows[0];
    return row === undefined ? null : jobFromDb(row);
  }

  async lease(r: JobLeaseRequest): Promise<BackgroundJobRow | null> {
    if (r.kinds.length === 0) return null;
    const sql = this.#sql;
    // Idle runners poll every second on every node: look before taking the writer (SQLite) or a lock.
    const any = await this.tx.read(
      sql`SELECT 1 AS one FROM background_jobs WHERE status = 'queued' AND kind IN ${[...r.kinds]} LIMIT 1`,
    );
    if (any.length === 0) return null;
    const self = this;
    return this.tx.transaction(function* () {
      const candidates = yield* all<{ project_id: string; id: string }>(sql`SELECT j.project_id, j.id
        FROM background_jobs j WHERE j.status = 'queued' AND j.kind IN ${[...r.kinds]}
        ORDER BY j.created_at, j.id LIMIT ${LEASE_CANDIDATES}`);
      for (const candidate of candidates) {
        const job = yield* self.#claimable(candidate.project_id, candidate.id);
        if (job === null) continue;
        yield* run(sql`UPDATE background_jobs SET status = 'running', started_at = ${r.now}, attempts = attempts + 1,
          lease_owner = ${r.owner}, lease_expires_at = ${r.now + r.leaseMicros}, fencing_token = fencing_token + 1
          WHERE project_id = ${job.project_id} AND id = ${job.id} AND status = 'queued'`);
        return yield* self.#lock(job.project_id, job.id);
      }
      return null;
    });
  }

  /** The queued job with this key, locked, or null when it is gone, taken, or being taken by another lease. */
  *#claimable(projectId: string, id: string): Tx<BackgroundJobRow | null> {
    const rows = yield* all<Record<string, unknown>>(this.#sql`SELECT * FROM background_jobs
      WHERE project_id = ${projectId} AND id = ${id} AND status = 'queued' ${raw(this.dialect.claim)}`);
    const row = rows[0];
    return row === undefined ? null : jobFromDb(row);
  }

  async heartbeat(projectId: string, id: string, token: number, now: number, leaseMicros: number): Promise<boolean> {
    const sql = this.#sql;
    const changed = await this.tx.transaction(function* () {
      return yield* run(sql`UPDATE background_jobs SET lease_expires_at = ${now + leaseMicros}
        WHERE project_id = ${projectId} AND id = ${id} AND status = 'running' AND fencing_token = ${token}`);
    });
    return changed === 1;
  }

  async release(projectId: string, id: string, token: number): Promise<boolean> {
    const sql = this.#sql;
    const changed = await this.tx.transaction(function* () {
      return yield* run(sql`UPDATE background_jobs SET status = 'queued', attempts = attempts - 1, lease_owner = NULL,
        lease_expires_at = NULL WHERE project_id = ${projectId} AND id = ${id} AND status = 'running' AND fencing_token = ${token}`);
    });
    return changed === 1;
  }

  finish(projectId: string, id: string, token: number, failure: string | null, now: number): Promise<JobWriteOutcome> {
    const self = this;
    return this.tx.transaction(function* (): Tx<JobWriteOutcome> {
      const job = yield* self.#lock(projectId, id);
      if (job === null) return { ok: false, reason: 'not_found' };
      if (job.status === 'succeeded' || job.status === 'failed') return { ok: false, reason: 'finished' };
      if (job.status !== 'running' || job.fencing_token !== token) return { ok: false, reason: 'stale' };
      yield* self.#end(job, failure, now);
      return { ok: true };
    });
  }

  *#end(job: BackgroundJobRow, failure: string | null, now: number): Tx<void> {
    const status = failure === null ? 'succeeded' : 'failed';
    yield* run(this
      .#sql`UPDATE background_jobs SET status = ${status}, finished_at = ${now}, error_message = ${failure},
      lease_owner = NULL, lease_expires_at = NULL WHERE project_id = ${job.project_id} AND id = ${job.id}`);
  }

  async sweep(now: number, exhaustedMessage: string): Promise<JobSweepResult> {
    const due = await this.tx.read<{ project_id: string; id: string }>(this.#sql`SELECT project_id, id
      FROM background_jobs WHERE status = 'running' AND lease_expires_at < ${now} ORDER BY created_at, id LIMIT 100`);
    const result: JobSweepResult = { requeued: [], failed: [] };
    for (const { project_id, id } of due) {
      const outcome = await this.#sweepOne(project_id, id, now, exhaustedMessage);
      if (outcome !== null) result[outcome.requeued ? 'requeued' : 'failed'].push(outcome.job);
    }
    return result;
  }

  /** Re-checked under the row lock: another node's sweeper or a heartbeat may have won. */
  #sweepOne(
    projectId: string,
    id: string,
    now: number,
    exhaustedMessage: string,
  ): Promise<{ job: BackgroundJobRow; requeued: boolean } | null> {
    const sql = this.#sql;
    const self = this;
    return this.tx.transaction(function* () {
      const job = yield* self.#lock(projectId, id);
      if (job === null || job.status !== 'running' || job.lease_expires_at === null || job.lease_expires_at >= now)
        return null;
      if (job.attempts >= job.max_attempts) {
        const message = exhaustedMessage.replace('{attempts}', String(job.attempts));
        yield* self.#end(job, message, now);
        return { job: { ...job, status: 'failed', error_message: message, finished_at: now }, requeued: false };
      }
      yield* run(sql`UPDATE background_jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
        WHERE project_id = ${projectId} AND id = ${id}`);
      return { job: { ...job, status: 'queued', lease_owner: null, lease_expires_at: null }, requeued: true };
    });
  }
}
