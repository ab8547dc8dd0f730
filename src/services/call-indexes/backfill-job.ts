import type { CallIndexStore } from '../../store/call-index-types.js';
import type { BackgroundJobRow } from '../../store/job-types.js';
import type { JobHandlers } from '../jobs/index.js';
import type { BackgroundLog } from '../../domain/log.js';

/** The kind migration 016 queues when `calls` already has rows (src/store/sql/migrations/016-…). */
export const BACKFILL_CALL_INDEXES = 'backfill_call_indexes';
/** How often progress goes to the log while the backfill runs. */
const LOG_EVERY_MS = 10_000;

/**
 * Fills the call indexes of migration 016 for the calls stored before it, one short transaction
 * per batch (call-indexes/backfill.ts), yielding between batches so ingest and queries take their
 * turns. Resumable: the position is in the database, so a re-leased job continues where it stopped.
 */
export async function runCallIndexBackfill(
  store: CallIndexStore,
  log: BackgroundLog | null,
  signal?: AbortSignal,
): Promise<{ calls: number; batches: number }> {
  const started = performance.now();
  let lastLog = started;
  let batches = 0;
  let progress = await store.progress();
  const from = progress.calls_done;
  log?.info({ calls_done: progress.calls_done, done: progress.done }, 'call index backfill: starting');
  while (!progress.done) {
    signal?.throwIfAborted();
    progress = await store.backfillBatch();
    batches += 1;
    const now = performance.now();
    if (now - lastLog >= LOG_EVERY_MS) {
      lastLog = now;
      const rate = Math.round(((progress.calls_done - from) * 1000) / (now - started));
      log?.info(
        { calls_done: progress.calls_done, project: progress.cursor_project, calls_per_s: rate },
        'call index backfill: progress',
      );
    }
    // let request handling (and on SQLite the writer's other work) run between batches
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const seconds = (performance.now() - started) / 1000;
  log?.info(
    { calls_done: progress.calls_done, batches, seconds: Math.round(seconds * 10) / 10 },
    'call index backfill: done, every project uses the indexes',
  );
  const building = performance.now();
  await store.buildDeferredIndexes();
  log?.info(
    { seconds: Math.round((performance.now() - building) / 100) / 10 },
    'call index backfill: deferred indexes built',
  );
  return { calls: progress.calls_done - from, batches };
}

export function callIndexJobHandlers(store: CallIndexStore, log: () => BackgroundLog | null): JobHandlers {
  return {
    [BACKFILL_CALL_INDEXES]: {
      run: async (_job: BackgroundJobRow, signal: AbortSignal) => {
        await runCallIndexBackfill(store, log(), signal);
      },
    },
  };
}
