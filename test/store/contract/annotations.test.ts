import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnnotationItemRow, AnnotationQueueRow } from '../../../src/store/annotation-types.js';
import type { TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

function queue(project_id: string, id: string, over: Partial<AnnotationQueueRow> = {}): AnnotationQueueRow {
  return {
    project_id,
    id,
    name: `queue ${id}`,
    description: '',
    scorer_refs: '[]',
    created_at: 10,
    created_by: 'u1',
    updated_at: 10,
    deleted_at: null,
    ...over,
  };
}

function item(project_id: string, queue_id: string, id: string, call_id: string): AnnotationItemRow {
  return {
    project_id,
    id,
    queue_id,
    call_id,
    call_started_at: 1,
    call_ended_at: null,
    call_op_name: 'op',
    call_trace_id: 't',
    display_fields: '["inputs"]',
    added_by: null,
    created_at: 20,
    created_by: 'u1',
    updated_at: 20,
    deleted_at: null,
  };
}

/** Ids sorted: the store promises no order for these lists (the service sorts). */
const idSet = (rows: { id: string }[]): string[] => rows.map((r) => r.id).sort();

async function queueWithItems(store: TraceStore, project: string, queueId: string, calls: string[]): Promise<void> {
  await store.annotations.createQueue(queue(project, queueId));
  await store.annotations.addItems(
    project,
    queueId,
    calls.map((c) => item(project, queueId, `${queueId}-${c}`, c)),
  );
}

forEachAdapter('annotation store', (store) => {
  test(
    'queues: created, read, updated, soft-deleted; a deleted queue is read but not listed or changed',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      const q = queue(project, 'q1', { scorer_refs: '["weave:///a"]' });
      await store().annotations.createQueue(q);
      await store().annotations.createQueue(queue(project, 'q2'));
      await store().annotations.createQueue(queue(other, 'q1'));
      assert.deepEqual(await store().annotations.getQueue(project, 'q1'), q);
      assert.equal(await store().annotations.getQueue(project, 'nope'), null);
      assert.deepEqual(idSet(await store().annotations.listQueues(project)), ['q1', 'q2']);
      // no changes: nothing bumped
      assert.deepEqual(await store().annotations.updateQueue(project, 'q1', {}, 99), q);
      const renamed = await store().annotations.updateQueue(project, 'q1', { name: 'new', description: 'd' }, 50);
      assert.deepEqual(renamed, { ...q, name: 'new', description: 'd', updated_at: 50 });
      assert.deepEqual(await store().annotations.getQueue(project, 'q1'), renamed);
      const deleted = await store().annotations.deleteQueue(project, 'q1', 60);
      assert.deepEqual(deleted, { ...renamed, deleted_at: 60, updated_at: 60 });
      assert.deepEqual(await store().annotations.getQueue(project, 'q1'), deleted);
      assert.deepEqual(idSet(await store().annotations.listQueues(project)), ['q2']);
      assert.equal(await store().annotations.deleteQueue(project, 'q1', 70), null);
      assert.equal(await store().annotations.updateQueue(project, 'q1', { name: 'x' }, 70), null);
      // the other project's queue of the same id is untouched
      assert.equal((await store().annotations.getQueue(other, 'q1'))?.deleted_at, null);
      assert.deepEqual(idSet(await store().annotations.listQueues(other)), ['q1']);
    }),
  );

  test(
    'items: a call is added to a queue once, per queue and project; calls already there are duplicates',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await store().annotations.createQueue(queue(project, 'q'));
      await store().annotations.createQueue(queue(project, 'q2'));
      await store().annotations.createQueue(queue(other, 'q'));
      const first = await store().annotations.addItems(project, 'q', [
        item(project, 'q', 'i1', 'c1'),
        item(project, 'q', 'i2', 'c2'),
        item(project, 'q', 'i2b', 'c2'),
      ]);
      // a repeat inside one request is added once and not counted as a duplicate
      assert.deepEqual(first, { added: 2, duplicates: 0 });
      const again = await store().annotations.addItems(project, 'q', [
        item(project, 'q', 'i3', 'c2'),
        item(project, 'q', 'i4', 'c3'),
      ]);
      assert.deepEqual(again, { added: 1, duplicates: 1 });
      assert.deepEqual(await store().annotations.addItems(project, 'q2', [item(project, 'q2', 'j1', 'c1')]), {
        added: 1,
        duplicates: 0,
      });
      assert.deepEqual(await store().annotations.addItems(other, 'q', [item(other, 'q', 'k1', 'c1')]), {
        added: 1,
        duplicates: 0,
      });
      const items = await store().annotations.listItems(project, 'q');
      assert.deepEqual(idSet(items), ['i1', 'i2', 'i4']);
      assert.deepEqual(
        items.find((i) => i.id === 'i1'),
        item(project, 'q', 'i1', 'c1'),
      );
      assert.deepEqual(idSet(await store().annotations.listItems(other, 'q')), ['k1']);
    }),
  );

  test(
    'progress follows the transition rules, per annotator, and only on live items of the queue',
    guard(async () => {
      const project = freshProject();
      await queueWithItems(store(), project, 'q', ['c1', 'c2']);
      await queueWithItems(store(), project, 'r', ['c1']);
      const set = (itemId: string, who: string, state: 'in_progress' | 'completed' | 'skipped', now = 100) =>
        store().annotations.setProgress(project, 'q', itemId, who, state, now);
      assert.deepEqual(await set('q-c1', 'ann', 'in_progress'), { ok: true });
      assert.deepEqual(await set('q-c1', 'ann', 'in_progress'), { ok: true });
      assert.deepEqual(await set('q-c1', 'ann', 'completed', 110), { ok: true });
      assert.deepEqual(await set('q-c1', 'ann', 'completed'), { ok: true });
      assert.deepEqual(await set('q-c1', 'ann', 'in_progress'), {
        ok: false,
        reason: 'in_progress_after_record',
        from: 'completed',
      });
      assert.deepEqual(await set('q-c1', 'ann', 'skipped'), {
        ok: false,
        reason: 'invalid_transition',
        from: 'completed',
      });
      // another annotator has a record of their own
      assert.deepEqual(await set('q-c1', 'bob', 'skipped', 120), { ok: true });
      // an item of another queue, or none at all
      assert.deepEqual(await set('r-c1', 'ann', 'completed'), { ok: false, reason: 'item_not_found' });
      assert.deepEqual(await set('zz', 'ann', 'completed'), { ok: false, reason: 'item_not_found' });
      const progress = await store().annotations.listProgress(project, 'q');
      assert.deepEqual(
        progress.sort((a, b) => a.annotator_user_id.localeCompare(b.annotator_user_id)),
        [
          { item_id: 'q-c1', annotator_user_id: 'ann', annotation_state: 'completed', updated_at: 110 },
          { item_id: 'q-c1', annotator_user_id: 'bob', annotation_state: 'skipped', updated_at: 120 },
        ],
      );
      assert.deepEqual(await store().annotations.listProgress(project, 'r'), []);
    }),
  );

  test(
    'stats count live items and items with a completed or skipped record, per queue of the project',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await queueWithItems(store(), project, 'q', ['c1', 'c2', 'c3']);
      await queueWithItems(store(), project, 'r', ['c1']);
      await queueWithItems(store(), other, 'q', ['c1']);
      await store().annotations.createQueue(queue(project, 'empty'));
      const set = (itemId: string, who: string, state: 'in_progress' | 'completed' | 'skipped') =>
        store().annotations.setProgress(project, 'q', itemId, who, state, 100);
      await set('q-c1', 'ann', 'completed');
      await set('q-c1', 'bob', 'skipped');
      await set('q-c2', 'ann', 'in_progress');
      await set('q-c3', 'bob', 'skipped');
      const stats = await store().annotations.stats(project, ['q', 'r', 'empty', 'q']);
      const zero = { total: 0, completed: 0 };
      assert.deepEqual(stats.get('q'), { total: 3, completed: 2 });
      assert.deepEqual(stats.get('r'), { total: 1, completed: 0 });
      assert.deepEqual(stats.get('empty') ?? zero, zero);
      assert.equal((await store().annotations.stats(project, [])).size, 0);
      assert.deepEqual((await store().annotations.stats(other, ['q'])).get('q'), { total: 1, completed: 0 });
    }),
  );
});
