import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidRequestError } from '../../../src/errors/app-error.js';
import type { SortKey } from '../../../src/domain/query/ast.js';
import type { RecordField } from '../../../src/store/feedback-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { feedback } from './parts.js';

const ids = (rows: { id: string }[]): string[] => rows.map((r) => r.id);
const column = (name: string, type: 'string' | 'number' | 'datetime' = 'string'): RecordField => ({
  kind: 'column',
  name,
  type,
});

forEachAdapter('feedback store', (store) => {
  test(
    'rows come back as inserted, JSON as equal JSON text, in created_at then id order, per project',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      const full = feedback(project, 'b', {
        created_at: 500,
        creator: 'Ann',
        payload: '{"z":1,"a":{"b":[1,2,"x"]},"long key":null}',
        scorer_tags: '["t1","t2"]',
        scorer_ratings: '{"r":0.5}',
        trigger_ref: 'weave:///x/op/t:1',
        queue_id: 'q1',
      });
      await store().feedback.insert([feedback(project, 'c', { created_at: 100 }), full, feedback(project, 'a')]);
      await store().feedback.insert([feedback(other, 'z', { created_at: 1 })]);
      const rows = await store().feedback.query({ project_id: project });
      assert.deepEqual(ids(rows), ['c', 'b', 'a']);
      const back = rows[1]!;
      for (const key of ['payload', 'scorer_tags', 'scorer_ratings'] as const)
        assert.deepEqual(JSON.parse(back[key]), JSON.parse(full[key]), key);
      assert.deepEqual(
        { ...back, payload: full.payload, scorer_tags: full.scorer_tags, scorer_ratings: full.scorer_ratings },
        full,
      );
      assert.equal(await store().feedback.count({ project_id: project }), 3);
      // created_at ties fall back to id
      await store().feedback.insert([feedback(project, '0', { created_at: 100 })]);
      assert.deepEqual(ids(await store().feedback.query({ project_id: project })), ['0', 'c', 'b', 'a']);
    }),
  );

  test(
    'an id already in the project fails the whole insert; the same id in another project is fine',
    guard(async () => {
      const project = freshProject();
      await store().feedback.insert([feedback(project, 'x')]);
      await assert.rejects(
        store().feedback.insert([feedback(project, 'new'), feedback(project, 'x')]),
        InvalidRequestError,
      );
      assert.deepEqual(ids(await store().feedback.query({ project_id: project })), ['x']);
      await store().feedback.insert([feedback(freshProject(), 'x')]);
    }),
  );

  test(
    'replace swaps the old id for the new row atomically; a clash keeps the old row',
    guard(async () => {
      const project = freshProject();
      await store().feedback.insert([feedback(project, 'old'), feedback(project, 'kept', { created_at: 2_000 })]);
      await store().feedback.replace(project, 'old', feedback(project, 'new', { payload: '{"v":2}' }));
      const rows = await store().feedback.query({ project_id: project });
      assert.deepEqual(ids(rows), ['new', 'kept']);
      assert.deepEqual(JSON.parse(rows[0]!.payload), { v: 2 });
      // replacing an id that is gone inserts all the same
      await store().feedback.replace(project, 'gone', feedback(project, 'newer', { created_at: 3_000 }));
      await assert.rejects(store().feedback.replace(project, 'new', feedback(project, 'kept')), InvalidRequestError);
      assert.deepEqual(ids(await store().feedback.query({ project_id: project })), ['new', 'kept', 'newer']);
    }),
  );

  test(
    'purge deletes only the listed ids of the project and counts them',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await store().feedback.insert([feedback(project, 'a'), feedback(project, 'b'), feedback(project, 'c')]);
      await store().feedback.insert([feedback(other, 'a')]);
      assert.equal(await store().feedback.purge(project, []), 0);
      assert.equal(await store().feedback.purge(project, ['a', 'c', 'missing']), 2);
      assert.equal(await store().feedback.purge(project, ['a']), 0);
      assert.deepEqual(ids(await store().feedback.query({ project_id: project })), ['b']);
      assert.deepEqual(ids(await store().feedback.query({ project_id: other })), ['a']);
    }),
  );

  test(
    'query filters on columns and JSON paths, sorts, pages; count ignores the page',
    guard(async () => {
      const project = freshProject();
      await store().feedback.insert([
        feedback(project, 'n1', { created_at: 1, payload: '{"score":3}' }),
        feedback(project, 'r1', { created_at: 2, feedback_type: 'wandb.reaction.1', payload: '{"score":1}' }),
        feedback(project, 'n2', { created_at: 3, payload: '{"score":2}' }),
        feedback(project, 'n3', { created_at: 4, payload: '{"score":9}' }),
      ]);
      const notes = {
        kind: 'compare',
        op: 'eq',
        left: { kind: 'field', field: column('feedback_type') },
        right: { kind: 'literal', value: 'note' },
      } as const;
      const byScore: SortKey<RecordField> = {
        field: { kind: 'json', column: 'payload', path: ['score'] },
        direction: 'desc',
      };
      const q = { project_id: project, where: notes, sort_by: [byScore], limit: 2, offset: 1 };
      assert.deepEqual(ids(await store().feedback.query(q)), ['n1', 'n2']);
      assert.equal(await store().feedback.count(q), 3);
      const createdDesc = { field: column('created_at', 'datetime'), direction: 'desc' } as const;
      assert.deepEqual(ids(await store().feedback.query({ project_id: project, sort_by: [createdDesc], limit: 1 })), [
        'n3',
      ]);
    }),
  );

  test(
    'forRefs returns the rows of those refs in this project, oldest first',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await store().feedback.insert([
        feedback(project, 'late', { weave_ref: 'r1', created_at: 9 }),
        feedback(project, 'early', { weave_ref: 'r2', created_at: 1 }),
        feedback(project, 'elsewhere', { weave_ref: 'r3', created_at: 5 }),
      ]);
      await store().feedback.insert([feedback(other, 'foreign', { weave_ref: 'r1' })]);
      assert.deepEqual(ids(await store().feedback.forRefs(project, ['r1', 'r2'])), ['early', 'late']);
      assert.deepEqual(await store().feedback.forRefs(project, []), []);
    }),
  );

  test(
    'inWindow: [from, to), type, exact or prefix trigger ref, newest per trigger ref, newest first, limit',
    guard(async () => {
      const project = freshProject();
      await store().feedback.insert([
        feedback(project, 'before', { created_at: 99, trigger_ref: 'mon/a' }),
        feedback(project, 'a1', { created_at: 100, trigger_ref: 'mon/a' }),
        feedback(project, 'a2', { created_at: 150, trigger_ref: 'mon/a' }),
        feedback(project, 'b1', { created_at: 120, trigger_ref: 'mon/b' }),
        feedback(project, 'x1', { created_at: 130, trigger_ref: 'other', feedback_type: 'score' }),
        feedback(project, 'none', { created_at: 140 }),
        feedback(project, 'at-end', { created_at: 200, trigger_ref: 'mon/a' }),
      ]);
      const w = { project_id: project, from: 100, to: 200 };
      assert.deepEqual(ids(await store().feedback.inWindow(w, null)), ['a2', 'none', 'x1', 'b1', 'a1']);
      assert.deepEqual(ids(await store().feedback.inWindow(w, 2)), ['a2', 'none']);
      assert.deepEqual(ids(await store().feedback.inWindow({ ...w, feedback_type: 'score' }, null)), ['x1']);
      assert.deepEqual(ids(await store().feedback.inWindow({ ...w, trigger_ref: 'mon/a' }, null)), ['a2', 'a1']);
      // a prefix is a prefix, not a LIKE pattern
      await store().feedback.insert([feedback(project, 'pct', { created_at: 110, trigger_ref: 'mon%/x' })]);
      const prefixed = await store().feedback.inWindow({ ...w, trigger_ref: 'mon/', trigger_ref_prefix: true }, null);
      assert.deepEqual(ids(prefixed), ['a2', 'b1', 'a1']);
      const newest = await store().feedback.inWindow({ ...w, newest_per_trigger_ref: true }, null);
      assert.deepEqual(ids(newest), ['a2', 'none', 'x1', 'b1', 'pct']);
    }),
  );
});
