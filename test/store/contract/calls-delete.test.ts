import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { ids, start } from './parts.js';

/** deleteCascade (docs/spec/calls.md §3.1) on every adapter. */
forEachAdapter('calls deleteCascade', (store) => {
  /** root r → x → y, r → z; a second trace with root s; w in another trace but naming x as parent. */
  async function tree(project: string): Promise<void> {
    await store().calls.write([
      start(project, 'r', { trace_id: 'T', started_at: 1 }),
      start(project, 'x', { trace_id: 'T', parent_id: 'r', started_at: 2 }),
      start(project, 'y', { trace_id: 'T', parent_id: 'x', started_at: 3 }),
      start(project, 'z', { trace_id: 'T', parent_id: 'r', started_at: 4 }),
      start(project, 's', { trace_id: 'S', started_at: 5 }),
      start(project, 'w', { trace_id: 'W', parent_id: 'x', started_at: 6 }),
    ]);
  }

  test(
    'deleting a call deletes its live descendants within its trace, and counts them',
    guard(async () => {
      const project = freshProject();
      await tree(project);
      assert.equal(await store().calls.deleteCascade(project, ['x'], 100), 2);
      assert.deepEqual(await ids(store(), { project_id: project }), ['r', 'z', 's', 'w']);
      assert.equal(await store().calls.read(project, 'y'), null);
    }),
  );

  test(
    'deleting roots of two traces at once; duplicates and unknown ids count once',
    guard(async () => {
      const project = freshProject();
      await tree(project);
      assert.equal(await store().calls.deleteCascade(project, ['r', 's', 'r', 'ghost'], 100), 6);
      assert.deepEqual(await ids(store(), { project_id: project }), ['w']);
      assert.equal((await store().calls.count({ project_id: project })).count, 1);
    }),
  );

  test(
    'an unknown id is remembered as deleted: its parts arriving later stay invisible',
    guard(async () => {
      const project = freshProject();
      assert.equal(await store().calls.deleteCascade(project, ['later'], 100), 1);
      await store().calls.write([start(project, 'later')]);
      assert.equal(await store().calls.read(project, 'later'), null);
    }),
  );

  test(
    'deleting twice keeps the first deletion and touches nothing else',
    guard(async () => {
      const project = freshProject();
      await tree(project);
      await store().calls.deleteCascade(project, ['y'], 100);
      assert.equal(await store().calls.deleteCascade(project, ['y'], 200), 1);
      assert.deepEqual(await ids(store(), { project_id: project }), ['r', 'x', 'z', 's', 'w']);
    }),
  );

  test(
    'deletion is scoped to the project',
    guard(async () => {
      const p1 = freshProject();
      const p2 = freshProject();
      await tree(p1);
      await tree(p2);
      await store().calls.deleteCascade(p1, ['r'], 100);
      assert.deepEqual(await ids(store(), { project_id: p2 }), ['r', 'x', 'y', 'z', 's', 'w']);
    }),
  );
});
