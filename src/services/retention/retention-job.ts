import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { RetentionSettings } from '../../config/config.js';
import { uuidv7 } from '../../domain/ids.js';
import { nowMicros } from '../../domain/time.js';
import type { BackgroundJobRow, NewBackgroundJob } from '../../store/job-types.js';
import type { RetentionCounts, RetentionStore, SpaceReport } from '../../store/retention-types.js';
import type { JobHandlers } from '../jobs/index.js';
import type { BackgroundLog } from '../../domain/log.js';

export const APPLY_RETENTION = 'apply_retention';
export const DAY_MICROS = 86_400_000_000;

/** The job's input: the cutoff is fixed when the job is queued, so a resumed job deletes the same calls. */
const RetentionJobInput = Type.Object({ keep_days: Type.Integer(), cutoff: Type.Integer() });

export function retentionJob(
  projectId: string,
  keepDays: number,
  now: number,
  createdBy: string,
  maxAttempts: number,
): NewBackgroundJob {
  return {
    project_id: projectId,
    id: uuidv7(),
    kind: APPLY_RETENTION,
    input: JSON.stringify({ keep_days: keepDays, cutoff: now - keepDays * DAY_MICROS }),
    created_by: createdBy,
    created_at: now,
    max_attempts: maxAttempts,
  };
}

export interface RetentionRunResult {
  deleted: RetentionCounts;
  batches: number;
  space: SpaceReport;
}

/**
 * Applies a cutoff: batches until none is left (each its own short transaction, so ingest takes its
 * turn between them), then gives the space back and records the run on the policy. Stops between
 * batches when `signal` aborts; running it again continues (what is deleted stays deleted).
 */
export async function applyCutoff(
  store: RetentionStore,
  projectId: string,
  cutoff: number,
  signal?: AbortSignal,
): Promise<RetentionRunResult> {
  const deleted: RetentionCounts = { calls: 0, feedback: 0, annotation_queue_items: 0, annotation_item_progress: 0 };
  let batches = 0;
  for (;;) {
    signal?.throwIfAborted();
    const batch = await store.deleteExpiredBatch(projectId, cutoff);
    batches += 1;
    for (const key of Object.keys(deleted) as (keyof RetentionCounts)[]) deleted[key] += batch[key];
    if (batch.calls === 0) break;
    // let request handling (and on SQLite the writer's other work) run between batches
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const space = await store.reclaimSpace();
  await store.recordRun(projectId, { ran_at: nowMicros(), cutoff, deleted_calls: deleted.calls });
  return { deleted, batches, space };
}

export function retentionJobHandlers(store: RetentionStore, log: () => BackgroundLog | null): JobHandlers {
  return {
    [APPLY_RETENTION]: {
      run: async (job: BackgroundJobRow, signal: AbortSignal) => {
        const input = Value.Parse(RetentionJobInput, JSON.parse(job.input));
        const result = await applyCutoff(store, job.project_id, input.cutoff, signal);
        log()?.info({ project_id: job.project_id, job_id: job.id, ...result }, 'retention applied');
      },
    },
  };
}

/**
 * Queues the runs of due policies on this node every `checkSeconds` (every node may: a run is
 * claimed in the same transaction that queues its job, retention-store.ts `scheduleDue`). The job
 * runners of any node then apply them.
 */
export class RetentionScheduler {
  #timer: NodeJS.Timeout | null = null;
  #pass: Promise<void> | null = null;
  #log: BackgroundLog | null = null;

  constructor(
    private readonly store: RetentionStore,
    private readonly settings: RetentionSettings,
    private readonly maxAttempts: number,
  ) {}

  /** One pass: the jobs queued. */
  async scheduleOnce(now = nowMicros()): Promise<NewBackgroundJob[]> {
    return this.store.scheduleDue(now, Math.round(this.settings.intervalSeconds * 1e6), (policy) =>
      retentionJob(policy.project_id, policy.keep_days, now, 'retention-scheduler', this.maxAttempts),
    );
  }

  start(log: BackgroundLog): void {
    this.#log = log;
    if (this.settings.checkSeconds > 0) this.#schedule();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#pass = this.scheduleOnce()
        .then((jobs) => {
          if (jobs.length > 0) this.#log?.info({ projects: jobs.map((j) => j.project_id) }, 'retention runs queued');
        })
        .catch((error: unknown) => this.#log?.warn({ err: error }, 'retention scheduling failed'))
        .finally(() => {
          this.#pass = null;
          if (this.#timer !== null) this.#schedule();
        });
    }, this.settings.checkSeconds * 1000);
    this.#timer.unref();
  }

  /** The node's logger once started (the job handler logs what each run removed). */
  get log(): BackgroundLog | null {
    return this.#log;
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#pass;
  }
}
