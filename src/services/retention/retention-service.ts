import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { formatMicros, nowMicros } from '../../domain/time.js';
import type {
  RetentionApplyReq,
  RetentionApplyRes,
  RetentionJobRes,
  RetentionPolicyRes,
} from '../../schemas/retention.js';
import type { RetentionPolicyRow, TraceStore } from '../../store/types.js';
import type { Caller } from '../auth-service.js';
import type { JobRuntime } from '../jobs/index.js';
import { parseProjectId, type ProjectAccess } from '../project-access.js';
import { APPLY_RETENTION, DAY_MICROS, retentionJob } from './retention-job.js';
import type { AuditLog } from '../audit-service.js';

const iso = (micros: number | null): string | null => (micros === null ? null : formatMicros(micros));

function policyRes(projectId: string, p: RetentionPolicyRow | null): RetentionPolicyRes {
  if (p === null) return { project_id: projectId, keep_days: null };
  return {
    project_id: projectId,
    keep_days: p.keep_days,
    updated_by: p.updated_by,
    updated_at: formatMicros(p.updated_at),
    next_run_at: formatMicros(p.next_run_at),
    last_run:
      p.last_run_at === null || p.last_cutoff === null
        ? null
        : {
            at: formatMicros(p.last_run_at),
            cutoff: formatMicros(p.last_cutoff),
            deleted_calls: p.last_deleted_calls ?? 0,
          },
  };
}

/**
 * Per-project retention (docs/export.md "Retention"): the policy, dry runs and runs on request.
 * Reading is open to the project's readers, viewers too; changing the policy or running it, dry runs
 * included, needs write access (a member or admin of the entity). Changes and runs are audited.
 */
export class RetentionService {
  constructor(
    private readonly store: TraceStore,
    private readonly access: ProjectAccess,
    private readonly jobs: JobRuntime,
    private readonly audit: AuditLog,
  ) {}

  #projectId(caller: Caller, entity: string, project: string): string {
    const projectId = `${entity}/${project}`;
    parseProjectId(projectId);
    this.access.assertCanRead(caller, projectId);
    return projectId;
  }

  async get(caller: Caller, entity: string, project: string): Promise<RetentionPolicyRes> {
    const projectId = this.#projectId(caller, entity, project);
    return policyRes(projectId, await this.store.retention.getPolicy(projectId));
  }

  /** Stores the policy (its first run is due at once), or with `dryRun` only answers what it would remove now. */
  async set(
    caller: Caller,
    entity: string,
    project: string,
    keepDays: number,
    dryRun: boolean,
  ): Promise<RetentionPolicyRes> {
    const projectId = this.#projectId(caller, entity, project);
    const now = nowMicros();
    await this.access.assertCanWrite(caller, projectId);
    if (dryRun) {
      const current = policyRes(projectId, await this.store.retention.getPolicy(projectId));
      const would = await this.store.retention.countExpired(projectId, now - keepDays * DAY_MICROS);
      return { ...current, would_delete: would };
    }
    const stored = await this.store.retention.setPolicy({
      project_id: projectId,
      keep_days: keepDays,
      updated_by: caller.userId,
      updated_at: now,
      next_run_at: now,
    });
    await this.audit.record(caller, entity, 'retention.changed', projectId, { keep_days: keepDays });
    return policyRes(projectId, stored);
  }

  async remove(caller: Caller, entity: string, project: string): Promise<RetentionPolicyRes> {
    const projectId = this.#projectId(caller, entity, project);
    await this.access.assertCanWrite(caller, projectId);
    if (!(await this.store.retention.deletePolicy(projectId)))
      throw new NotFoundError(`Project ${projectId} has no retention policy`);
    await this.audit.record(caller, entity, 'retention.changed', projectId, { keep_days: null });
    return policyRes(projectId, null);
  }

  /** Counts what a run removes now; unless `dry_run`, queues the run as a job. */
  async apply(caller: Caller, entity: string, project: string, req: RetentionApplyReq): Promise<RetentionApplyRes> {
    const projectId = this.#projectId(caller, entity, project);
    const keepDays = req.keep_days ?? (await this.store.retention.getPolicy(projectId))?.keep_days;
    if (keepDays === undefined)
      throw new InvalidRequestError(
        `Project ${projectId} has no retention policy; give keep_days or PUT a policy first`,
      );
    const now = nowMicros();
    const dryRun = req.dry_run ?? false;
    await this.access.assertCanWrite(caller, projectId);
    const job = retentionJob(projectId, keepDays, now, caller.userId, this.jobs.settings.maxAttempts);
    const cutoff = now - keepDays * DAY_MICROS;
    const would = await this.store.retention.countExpired(projectId, cutoff);
    if (!dryRun) {
      await this.jobs.enqueue([job]);
      await this.audit.record(caller, entity, 'retention.applied', projectId, { keep_days: keepDays, job_id: job.id });
    }
    return {
      project_id: projectId,
      dry_run: dryRun,
      keep_days: keepDays,
      cutoff: formatMicros(cutoff),
      would_delete: would,
      ...(dryRun ? {} : { job_id: job.id }),
    };
  }

  async job(caller: Caller, entity: string, project: string, jobId: string): Promise<RetentionJobRes> {
    const projectId = this.#projectId(caller, entity, project);
    const job = await this.store.jobs.get(projectId, jobId);
    if (job === null || job.kind !== APPLY_RETENTION)
      throw new NotFoundError(`No retention job ${jobId} in project ${projectId}`);
    return {
      id: job.id,
      status: job.status,
      attempts: job.attempts,
      created_at: formatMicros(job.created_at),
      started_at: iso(job.started_at),
      finished_at: iso(job.finished_at),
      error_message: job.error_message,
    };
  }
}
