import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { AnnotationItemRow, AnnotationQueueRow } from '../../../src/store/annotation-types.js';
import type { FeedbackRow, TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { end, feedback, start } from './parts.js';

/**
 * Retention on every adapter (docs/export.md "Retention"): the dry run counts exactly what a run
 * deletes (calls before the cutoff, their feedback and annotation items with progress), batches
 * stop at their size, other projects and newer calls stay, and the scheduler queues each due run
 * once.
 */

const DAY = 86_400_000_000;
const NOW = 1_800_000_000_000_000;

const feedbackOn = (project_id: string, callId: string): FeedbackRow =>
  feedback(project_id, uuidv7(), { weave_ref: `weave:///${project_id}/call/${callId}`, created_at: NOW });

const queue = (project_id: string): AnnotationQueueRow => ({
  project_id,
  id: 'q',
  name: 'q',
  description: '',
  scorer_refs: '[]',
  created_at: 1,
  created_by: 'u1',
  updated_at: 1,
  deleted_at: null,
});

const item = (project_id: string, call_id: string): AnnotationItemRow => ({
  project_id,
  id: `item-${call_id}`,
  queue_id: 'q',
  call_id,
  call_started_at: 1,
  call_ended_at: null,
  call_op_name: 'op',
  call_trace_id: 't',
  display_fields: '[]',
  added_by: null,
  created_at: 1,
  created_by: 'u1',
  updated_at: 1,
  deleted_at: null,
});

/** `old` calls started 10+ days before NOW, `fresh` ones 1 day before; each old and fresh call has feedback and an item. */
async function seed(store: TraceStore, project: string, old: number, fresh: number): Promise<void> {
  const parts = [];
  for (let i = 0; i < old; i += 1) {
    parts.push(start(project, `old-${i}`, { started_at: NOW - 10 * DAY - i }), end(project, `old-${i}`));
  }
  for (let i = 0; i < fresh; i += 1) parts.push(start(project, `new-${i}`, { started_at: NOW - DAY + i }));
  await store.calls.write(parts);
  await store.feedback.insert([
    feedbackOn(project, 'old-0'),
    feedbackOn(project, 'old-1'),
    feedbackOn(project, 'new-0'),
  ]);
  await store.annotations.createQueue(queue(project));
  await store.annotations.addItems(project, 'q', [item(project, 'old-0'), item(project, 'new-0')]);
  await store.annotations.setProgress(project, 'q', 'item-old-0', 'u1', 'completed', 5);
  await store.annotations.setProgress(project, 'q', 'item-new-0', 'u1', 'completed', 5);
}

forEachAdapter('retention store', (store) => {
  test(
    'a new SQLite file gives pages back with incremental vacuum; PostgreSQL leaves it to autovacuum',
    guard(async () => {
      const s = store();
      const report = await s.retention.reclaimSpace();
      assert.equal(report.mode, s.kind === 'sqlite' ? 'incremental' : 'autovacuum');
    }),
  );

  test(
    'policies are stored, replaced keeping the last run, and removed',
    guard(async () => {
      const r = store().retention;
      const p = freshProject();
      assert.equal(await r.getPolicy(p), null);
      const set = await r.setPolicy({ project_id: p, keep_days: 30, updated_by: 'u1', updated_at: 5, next_run_at: 6 });
      assert.deepEqual(set, {
        project_id: p,
        keep_days: 30,
        updated_by: 'u1',
        updated_at: 5,
        next_run_at: 6,
        last_run_at: null,
        last_cutoff: null,
        last_deleted_calls: null,
      });
      await r.recordRun(p, { ran_at: 7, cutoff: 3, deleted_calls: 12 });
      const replaced = await r.setPolicy({
        project_id: p,
        keep_days: 7,
        updated_by: 'u2',
        updated_at: 8,
        next_run_at: 9,
      });
      assert.deepEqual(
        [
          replaced.keep_days,
          replaced.updated_by,
          replaced.last_run_at,
          replaced.last_cutoff,
          replaced.last_deleted_calls,
        ],
        [7, 'u2', 7, 3, 12],
      );
      assert.equal(await r.deletePolicy(p), true);
      assert.equal(await r.deletePolicy(p), false);
      assert.equal(await r.getPolicy(p), null);
    }),
  );

  test(
    'the dry run counts what batches then delete; newer calls and other projects stay',
    guard(async () => {
      const s = store();
      const p = freshProject();
      const other = freshProject();
      await seed(s, p, 25, 5);
      await seed(s, other, 3, 1);
      const cutoff = NOW - 7 * DAY;
      const expected = { calls: 25, feedback: 2, annotation_queue_items: 1, annotation_item_progress: 1 };
      assert.deepEqual(await s.retention.countExpired(p, cutoff), expected);

      const batches = [];
      for (;;) {
        const b = await s.retention.deleteExpiredBatch(p, cutoff, { batchRows: 10 });
        batches.push(b.calls);
        if (b.calls < 10) break;
      }
      assert.deepEqual(batches, [10, 10, 5]);
      assert.deepEqual(await s.retention.countExpired(p, cutoff), {
        calls: 0,
        feedback: 0,
        annotation_queue_items: 0,
        annotation_item_progress: 0,
      });
      const counts = await s.projectData.rowCounts(p);
      assert.equal(counts.calls, 5);
      assert.equal(counts.feedback, 1);
      assert.equal(counts.annotation_queue_items, 1);
      assert.equal(counts.annotation_item_progress, 1);
      // oldest first: the fresh calls are the ones left
      assert.equal((await s.feedback.forRefs(p, [`weave:///${p}/call/new-0`])).length, 1);
      assert.equal((await s.retention.countExpired(other, cutoff)).calls, 3);
      assert.equal((await s.projectData.rowCounts(other)).calls, 4);
    }),
  );

  test(
    'a batch removes the oldest calls first',
    guard(async () => {
      const s = store();
      const p = freshProject();
      await seed(s, p, 6, 0);
      // old-5 started first (NOW - 10 days - 5 µs)
      const b = await s.retention.deleteExpiredBatch(p, NOW, { batchRows: 2 });
      assert.equal(b.calls, 2);
      const counts = await s.retention.countExpired(p, NOW - 10 * DAY - 3);
      assert.equal(counts.calls, 0, 'old-5 and old-4 (the two oldest) are gone');
      assert.equal((await s.retention.countExpired(p, NOW)).calls, 4);
    }),
  );

  test(
    'the scheduler queues each due run once, with the job, and moves the next run',
    guard(async () => {
      const s = store();
      const p = freshProject();
      await s.retention.setPolicy({ project_id: p, keep_days: 3, updated_by: 'u1', updated_at: 1, next_run_at: 100 });
      const make = (policy: { project_id: string; keep_days: number }) => ({
        project_id: policy.project_id,
        id: uuidv7(),
        kind: 'apply_retention',
        input: JSON.stringify({ keep_days: policy.keep_days }),
        created_by: 'scheduler',
        created_at: 200,
        max_attempts: 3,
      });
      assert.equal((await s.retention.scheduleDue(50, 1000, make)).filter((j) => j.project_id === p).length, 0);
      const [a, b] = await Promise.all([
        s.retention.scheduleDue(200, 1000, make),
        s.retention.scheduleDue(200, 1000, make),
      ]);
      const mine = [...a, ...b].filter((j) => j.project_id === p);
      assert.equal(mine.length, 1, 'two nodes at once queue the run once');
      const job = await s.jobs.get(p, mine[0]!.id);
      assert.equal(job?.status, 'queued');
      assert.equal(job?.kind, 'apply_retention');
      assert.equal((await s.retention.getPolicy(p))?.next_run_at, 1200);
      assert.equal((await s.retention.scheduleDue(1199, 1000, make)).filter((j) => j.project_id === p).length, 0);
    }),
  );
});
