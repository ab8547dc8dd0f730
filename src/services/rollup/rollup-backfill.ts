import { nowMicros } from '../../domain/time.js';
import type { BackgroundJobRow } from '../../store/job-types.js';
import type { CallKeyCursor, TraceStore } from '../../store/types.js';
import type { JobHandlers } from '../jobs/index.js';
import type { BackgroundLog } from '../../domain/log.js';

/**
 * The backfill of the call roll-up (docs/call-rollups.md): calls written before migration 15 are
 * added to it in key-order batches, each its own transaction (store.rollups.backfillBatch), and the
 * roll-up is marked complete at the end; until then `/calls/stats` scans. A durable job on the
 * background queue, so a node that dies mid-way leaves it to another (a re-run starts from the first
 * key again and skips, cheaply, the calls already counted).
 */

export const CALL_ROLLUP_BACKFILL = 'call_rollup_backfill';
/** The job's key: one for the whole store, on no user's project ('' is never a project id). */
export const BACKFILL_JOB = { project_id: '', id: 'call-rollup-backfill' };
/** Calls per transaction: on SQLite one writer turn each, so ingest takes its turns between them. */
const BATCH = 2_000;
/** Progress goes to the log about this often. */
const LOG_EVERY_MS = 5_000;

export async function runBackfill(
  store: TraceStore,
  log: BackgroundLog | null,
  signal?: AbortSignal,
): Promise<{ read: number; added: number }> {
  let cursor: CallKeyCursor | null = null;
  let read = 0;
  let added = 0;
  let logged = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const batch = await store.rollups.backfillBatch(cursor, BATCH);
    read += batch.read;
    added += batch.added;
    if (batch.next === null) break;
    cursor = batch.next;
    if (Date.now() - logged >= LOG_EVERY_MS) {
      logged = Date.now();
      log?.info({ read, added, at_project: cursor.project_id }, 'call roll-up backfill progress');
    }
    // let request handling (and on SQLite the writer's other work) run between batches
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await store.rollups.markComplete(nowMicros());
  log?.info({ read, added }, 'call roll-up backfill complete: /calls/stats now reads the roll-up');
  return { read, added };
}

export function rollupBackfillHandlers(store: TraceStore, log: () => BackgroundLog | null): JobHandlers {
  return {
    [CALL_ROLLUP_BACKFILL]: {
      run: async (_job: BackgroundJobRow, signal: AbortSignal) => {
        await runBackfill(store, log(), signal);
      },
    },
  };
}

/**
 * Queues the backfill when the roll-up is incomplete and no backfill job is queued or running
 * (every node checks on start; a concurrent insert of the same key loses harmlessly, and two
 * backfills at once would still count each call once: each batch locks its calls).
 */
export class RollupBackfillStarter {
  #log: BackgroundLog | null = null;

  constructor(
    private readonly store: TraceStore,
    private readonly maxAttempts: number,
  ) {}

  get log(): BackgroundLog | null {
    return this.#log;
  }

  async start(log: BackgroundLog): Promise<void> {
    this.#log = log;
    try {
      await this.ensureQueued();
    } catch (error) {
      log.warn({ err: error }, 'call roll-up backfill could not be queued; /calls/stats keeps scanning');
    }
  }

  /** Whether a job was queued. */
  async ensureQueued(now = nowMicros()): Promise<boolean> {
    if (await this.store.rollups.complete()) return false;
    // every call already counted (a store without calls, say): nothing for a job to do
    if (await this.store.rollups.completeIfAllCounted(now)) return false;
    const existing = await this.store.jobs.get(BACKFILL_JOB.project_id, BACKFILL_JOB.id);
    if (existing !== null && (existing.status === 'queued' || existing.status === 'running')) return false;
    // a backfill that failed for good is tried again under a new key (it resumes: counted calls are skipped)
    const id = existing === null ? BACKFILL_JOB.id : `${BACKFILL_JOB.id}-${now}`;
    try {
      await this.store.jobs.enqueue([
        {
          project_id: BACKFILL_JOB.project_id,
          id,
          kind: CALL_ROLLUP_BACKFILL,
          input: '{}',
          created_by: 'call-rollup',
          created_at: now,
          max_attempts: this.maxAttempts,
        },
      ]);
    } catch (error) {
      // another node queued it first
      if ((await this.store.jobs.get(BACKFILL_JOB.project_id, id)) !== null) return false;
      throw error;
    }
    this.#log?.info({ job_id: id }, 'call roll-up backfill queued: /calls/stats scans until it completes');
    return true;
  }
}
