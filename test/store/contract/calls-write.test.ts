import assert from 'node:assert/strict';
import { test } from 'node:test';
import { end, ids, rows, start } from './parts.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/** Call writes merge by (project_id, id) in any order (docs/spec/calls.md §3), on every adapter. */
forEachAdapter('calls write', (store) => {
  test(
    'start then end: one row with both parts, JSON as compact text',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([
        start(project, 'a', {
          inputs: '{"question":"2+2, or: 5?","n":[1,2.5,{"x":null}]}',
          attributes: '{"env":"test"}',
        }),
      ]);
      await store().calls.write([
        end(project, 'a', {
          output: '{"answer":4,"ok":true}',
          summary: '{"usage":{"m":{"requests":1}}}',
          wb_run_step_end: 3,
        }),
      ]);
      const row = await store().calls.read(project, 'a');
      assert.ok(row);
      assert.equal(row.op_name, 'weave:///acme/demo/op/predict:abc');
      assert.equal(row.started_at, 1_700_000_000_000_000);
      assert.equal(row.ended_at, 1_700_000_001_000_000);
      assert.equal(row.wb_run_step_end, 3);
      assert.deepEqual(JSON.parse(row.inputs!), { question: '2+2, or: 5?', n: [1, 2.5, { x: null }] });
      assert.deepEqual(JSON.parse(row.output!), { answer: 4, ok: true });
      assert.deepEqual(JSON.parse(row.summary!), { usage: { m: { requests: 1 } } });
      for (const text of [row.inputs!, row.output!, row.summary!, row.attributes!]) {
        // compact: re-serialising changes nothing (key order may differ per adapter, spacing may not)
        assert.equal(text, JSON.stringify(JSON.parse(text)));
      }
    }),
  );

  test(
    'end before start: invisible until the start arrives, then merged',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([end(project, 'b', { output: '"done"', exception: 'boom' })]);
      assert.equal(await store().calls.read(project, 'b'), null);
      assert.deepEqual(await ids(store(), { project_id: project }), []);
      assert.equal((await store().calls.count({ project_id: project })).count, 0);
      await store().calls.write([start(project, 'b')]);
      const row = await store().calls.read(project, 'b');
      assert.equal(row?.output, '"done"');
      assert.equal(row?.exception, 'boom');
    }),
  );

  test(
    'a later start replaces the start fields but keeps a display name it does not carry',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([start(project, 'c', { display_name: 'First', inputs: '{"v":1}', parent_id: 'p1' })]);
      await store().calls.write([start(project, 'c', { inputs: '{"v":2}', parent_id: null, started_at: 5 })]);
      const row = await store().calls.read(project, 'c');
      assert.equal(row?.display_name, 'First');
      assert.equal(row?.inputs, '{"v":2}');
      assert.equal(row?.parent_id, null);
      assert.equal(row?.started_at, 5);
      await store().calls.write([start(project, 'c', { display_name: 'Second' })]);
      assert.equal((await store().calls.read(project, 'c'))?.display_name, 'Second');
    }),
  );

  test(
    'an update before the start names the call; a later end replaces end fields',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([{ kind: 'update', project_id: project, id: 'd', display_name: 'Renamed' }]);
      await store().calls.write([start(project, 'd')]);
      assert.equal((await store().calls.read(project, 'd'))?.display_name, 'Renamed');
      await store().calls.write([end(project, 'd', { output: '1', exception: 'x' })]);
      await store().calls.write([end(project, 'd', { output: '2', exception: null, ended_at: 9 })]);
      const row = await store().calls.read(project, 'd');
      assert.equal(row?.output, '2');
      assert.equal(row?.exception, null);
      assert.equal(row?.ended_at, 9);
      await store().calls.write([{ kind: 'update', project_id: project, id: 'd', display_name: '' }]);
      assert.equal((await store().calls.read(project, 'd'))?.display_name, '');
    }),
  );

  test(
    'parts of one write apply in order, atomically',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([
        end(project, 'e', { output: '"out"' }),
        { kind: 'update', project_id: project, id: 'e', display_name: 'early' },
        start(project, 'e', { display_name: null }),
        start(project, 'f'),
        { kind: 'update', project_id: project, id: 'f', display_name: 'late' },
        start(project, 'g', { display_name: 'g1' }),
        { kind: 'update', project_id: project, id: 'g', display_name: 'g2' },
        start(project, 'g', { display_name: 'g3' }),
      ]);
      const byId = new Map((await rows(store(), { project_id: project })).map((r) => [r.id, r]));
      assert.equal(byId.get('e')?.display_name, 'early');
      assert.equal(byId.get('e')?.output, '"out"');
      assert.equal(byId.get('f')?.display_name, 'late');
      assert.equal(byId.get('g')?.display_name, 'g3');
    }),
  );

  test(
    'writing the same parts twice leaves one identical row',
    guard(async () => {
      const project = freshProject();
      const parts = [start(project, 'h', { inputs: '{"a":1}' }), end(project, 'h', { output: '[1,2]' })];
      await store().calls.write(parts);
      const first = await store().calls.read(project, 'h');
      await store().calls.write(parts);
      assert.deepEqual(await store().calls.read(project, 'h'), first);
      assert.equal((await store().calls.count({ project_id: project })).count, 1);
    }),
  );

  test(
    'many concurrent writes are all acknowledged and all visible',
    guard(async () => {
      const project = freshProject();
      const n = 300;
      await Promise.all(
        Array.from({ length: n }, (_, i) => {
          const id = `call-${String(i).padStart(4, '0')}`;
          // half send end first: the merge must not depend on arrival order
          const parts = [start(project, id, { started_at: 1000 + i }), end(project, id, { ended_at: 2000 + i })];
          return store().calls.write(i % 2 === 0 ? parts : parts.reverse());
        }),
      );
      const seen = await rows(store(), { project_id: project });
      assert.equal(seen.length, n);
      assert.ok(seen.every((r, i) => r.started_at === 1000 + i && r.ended_at === 2000 + i));
    }),
  );

  test(
    'a deleted call stays deleted when more parts arrive',
    guard(async () => {
      const project = freshProject();
      await store().calls.write([start(project, 'k')]);
      assert.equal(await store().calls.deleteCascade(project, ['k'], 77), 1);
      await store().calls.write([start(project, 'k'), end(project, 'k')]);
      assert.equal(await store().calls.read(project, 'k'), null);
    }),
  );

  test(
    'projects are isolated',
    guard(async () => {
      const p1 = freshProject();
      const p2 = freshProject();
      await store().calls.write([start(p1, 'same', { inputs: '{"p":1}' }), start(p2, 'same', { inputs: '{"p":2}' })]);
      assert.equal((await store().calls.read(p1, 'same'))?.inputs, '{"p":1}');
      assert.equal((await store().calls.read(p2, 'same'))?.inputs, '{"p":2}');
      assert.equal(await store().calls.read(freshProject(), 'same'), null);
    }),
  );
});
