import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConflictError } from '../../../src/errors/app-error.js';
import type { ObjectVersionInsert } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

function version(
  project: string,
  objectId: string,
  digest: string,
  overrides: Partial<ObjectVersionInsert> = {},
): ObjectVersionInsert {
  const val = JSON.stringify({ digest, b: [1, 2], a: 'x' });
  return {
    project_id: project,
    object_id: objectId,
    digest,
    kind: 'object',
    base_object_class: 'Dataset',
    leaf_object_class: 'Dataset',
    val,
    size_bytes: Buffer.byteLength(val),
    wb_user_id: 'u1',
    created_at: 1_000,
    ...overrides,
  };
}

/** Object versions, tags and aliases (docs/spec/objects.md §2–3) on every adapter. */
forEachAdapter('object store', (store) => {
  test(
    'versions number from 0; a live digest published again becomes latest; val comes back byte for byte',
    guard(async () => {
      const p = freshProject();
      const val = '{"z": 1, "a": [1.0, 2]}';
      assert.deepEqual(await store().objects.create(version(p, 'ds', 'd0', { val, size_bytes: val.length })), {
        status: 'created',
        version_index: 0,
        created_at: 1_000,
      });
      assert.deepEqual(await store().objects.create(version(p, 'ds', 'd1', { created_at: 2_000 })), {
        status: 'created',
        version_index: 1,
        created_at: 2_000,
      });
      assert.equal((await store().objects.findVersion(p, 'ds', { by: 'latest' }))?.digest, 'd1');
      assert.deepEqual(await store().objects.create(version(p, 'ds', 'd0', { created_at: 3_000 })), {
        status: 'existing',
        version_index: 0,
        created_at: 1_000,
      });
      const latest = await store().objects.findVersion(p, 'ds', { by: 'latest' });
      assert.equal(latest?.digest, 'd0');
      assert.equal(latest?.val, val);
      assert.equal(latest?.is_latest, 1);
      assert.equal((await store().objects.findVersion(p, 'ds', { by: 'index', index: 1 }))?.is_latest, 0);
      assert.equal(
        (await store().objects.findVersion(p, 'ds', { by: 'digest', digest: 'd1' }, { metadata_only: true }))?.val,
        '{}',
      );
    }),
  );

  test(
    'another base class for the same name and kind is a collision and writes nothing',
    guard(async () => {
      const p = freshProject();
      await store().objects.create(version(p, 'm', 'd0', { base_object_class: 'Model' }));
      const outcome = await store().objects.create(version(p, 'm', 'd1', { base_object_class: 'Dataset' }));
      assert.deepEqual(outcome, { status: 'collision', existing_base_object_classes: ['Model'] });
      assert.equal(await store().objects.findVersion(p, 'm', { by: 'digest', digest: 'd1' }), null);
      assert.equal(
        (await store().objects.create(version(p, 'm', 'op0', { kind: 'op', base_object_class: null }))).status,
        'created',
      );
    }),
  );

  test(
    'concurrent publications of one object get distinct consecutive indexes and one latest',
    guard(async () => {
      const p = freshProject();
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store().objects.create(version(p, 'busy', `d${i}`))),
      );
      const indexes = outcomes.map((o) => (o.status === 'collision' ? -1 : o.version_index)).sort((a, b) => a - b);
      assert.deepEqual(
        indexes,
        Array.from({ length: 12 }, (_, i) => i),
      );
      const live = await store().objects.query({ project_id: p, filter: { latest_only: true } });
      assert.equal(live.length, 1);
    }),
  );

  test(
    'query: filters, order, paging, metadata only',
    guard(async () => {
      const p = freshProject();
      await store().objects.create(version(p, 'b-obj', 'b0', { created_at: 10 }));
      await store().objects.create(
        version(p, 'a-obj', 'a0', { created_at: 20, base_object_class: 'Model', leaf_object_class: 'MyModel' }),
      );
      await store().objects.create(
        version(p, 'a-obj', 'a1', { created_at: 30, base_object_class: 'Model', leaf_object_class: 'MyModel' }),
      );
      await store().objects.create(
        version(p, 'op', 'o0', { created_at: 40, kind: 'op', base_object_class: null, leaf_object_class: null }),
      );
      const q = async (extra: object) =>
        (await store().objects.query({ project_id: p, ...extra })).map((r) => `${r.object_id}:${r.version_index}`);
      assert.deepEqual(await q({}), ['b-obj:0', 'a-obj:0', 'a-obj:1', 'op:0']);
      assert.deepEqual(await q({ filter: { latest_only: true } }), ['b-obj:0', 'a-obj:1', 'op:0']);
      assert.deepEqual(await q({ filter: { is_op: true } }), ['op:0']);
      assert.deepEqual(await q({ filter: { base_object_classes: ['Model'] } }), ['a-obj:0', 'a-obj:1']);
      assert.deepEqual(await q({ filter: { exclude_base_object_classes: ['Model'] } }), ['b-obj:0', 'op:0']);
      assert.deepEqual(await q({ filter: { leaf_object_classes: ['MyModel'], object_ids: ['a-obj', 'b-obj'] } }), [
        'a-obj:0',
        'a-obj:1',
      ]);
      assert.deepEqual(await q({ sort_by: [{ field: 'object_id', direction: 'asc' }] }), [
        'a-obj:0',
        'a-obj:1',
        'b-obj:0',
        'op:0',
      ]);
      assert.deepEqual(await q({ sort_by: [{ field: 'created_at', direction: 'desc' }], limit: 2, offset: 1 }), [
        'a-obj:1',
        'a-obj:0',
      ]);
      const [meta] = await store().objects.query({
        project_id: p,
        filter: { object_ids: ['op'] },
        metadata_only: true,
      });
      assert.ok(meta !== undefined);
      assert.equal(meta.val, '{}');
      assert.equal(meta.kind, 'op');
      assert.equal(meta.size_bytes, Buffer.byteLength(JSON.stringify({ digest: 'o0', b: [1, 2], a: 'x' })));
    }),
  );

  test(
    'delete: all-or-nothing selectors, latest moves to the newest survivor, deleted versions still found',
    guard(async () => {
      const p = freshProject();
      for (let i = 0; i < 3; i += 1) await store().objects.create(version(p, 'ds', `d${i}`, { created_at: 100 + i }));
      assert.equal(
        await store().objects.delete(
          p,
          'ds',
          [
            { by: 'index', index: 1 },
            { by: 'index', index: 9 },
          ],
          500,
        ),
        null,
      );
      const deleted = await store().objects.delete(p, 'ds', [{ by: 'latest' }, { by: 'digest', digest: 'd2' }], 500);
      assert.deepEqual(
        deleted?.map((r) => [r.version_index, r.deleted_at, r.is_latest]),
        [[2, 500, 0]],
      );
      assert.equal((await store().objects.findVersion(p, 'ds', { by: 'latest' }))?.version_index, 1);
      const gone = await store().objects.findVersion(p, 'ds', { by: 'digest', digest: 'd2' });
      assert.equal(gone?.deleted_at, 500);
      assert.equal(
        (await store().objects.create(version(p, 'ds', 'd3'))).status === 'created' ? 3 : -1,
        3,
        'indexes are never reused',
      );
      assert.equal((await store().objects.delete(p, 'ds', null, 600))?.length, 3);
      assert.equal(await store().objects.findVersion(p, 'ds', { by: 'latest' }), null);
    }),
  );

  test(
    'tags and aliases: labels per version, moving aliases, listing, removal',
    guard(async () => {
      const p = freshProject();
      await store().objects.create(version(p, 'ds', 'd0'));
      await store().objects.create(version(p, 'ds', 'd1'));
      assert.equal(await store().objects.addTags(p, 'ds', 'd0', ['gold', 'reviewed', 'gold'], 1), true);
      assert.equal(await store().objects.addTags(p, 'ds', 'nope', ['x'], 1), false);
      assert.equal(await store().objects.setAliases(p, 'ds', 'd0', ['prod', 'best'], 1), true);
      assert.equal(await store().objects.setAliases(p, 'ds', 'd1', ['prod'], 2), true);
      const labels = await store().objects.labels(p, [
        { object_id: 'ds', digest: 'd0' },
        { object_id: 'ds', digest: 'd1' },
      ]);
      assert.deepEqual(labels.get('ds:d0'), { tags: ['gold', 'reviewed'], aliases: ['best'] });
      assert.deepEqual(labels.get('ds:d1'), { tags: [], aliases: ['prod'] });
      assert.equal((await store().objects.findVersion(p, 'ds', { by: 'alias', alias: 'prod' }))?.digest, 'd1');
      assert.equal((await store().objects.findVersion(p, 'ds', { by: 'alias', alias: 'd0' }))?.digest, 'd0');
      assert.deepEqual(await store().objects.listTags(p), ['gold', 'reviewed']);
      assert.deepEqual(await store().objects.listAliases(p), ['best', 'prod']);
      const tagged = await store().objects.query({ project_id: p, filter: { tags: ['gold'] } });
      assert.deepEqual(
        tagged.map((r) => r.digest),
        ['d0'],
      );
      const aliased = await store().objects.query({ project_id: p, filter: { aliases: ['latest', 'best'] } });
      assert.deepEqual(
        aliased.map((r) => r.digest),
        ['d0', 'd1'],
      );
      await store().objects.removeTags(p, 'ds', 'd0', ['gold', 'missing']);
      await store().objects.removeAliases(p, 'ds', ['best', 'missing']);
      assert.deepEqual(await store().objects.listTags(p), ['reviewed']);
      assert.deepEqual(await store().objects.listAliases(p), ['prod']);
      await store().objects.delete(p, 'ds', [{ by: 'digest', digest: 'd1' }], 9);
      assert.deepEqual(await store().objects.listAliases(p), [], 'deleting a version removes its aliases');
    }),
  );
});

/** Content-addressed files in chunks (docs/spec/objects.md §6) on every adapter. */
forEachAdapter('file store', (store) => {
  test(
    'staged chunks become a file; the same digest again keeps the first and drops the new chunks',
    guard(async () => {
      const p = freshProject();
      const bytes = [Buffer.from('hello '), Buffer.from([0, 255, 1, 2]), new Uint8Array([119, 111, 114, 108, 100])];
      for (const [seq, chunk] of bytes.entries()) await store().files.stageChunk(p, 'up1', seq, chunk);
      const file = { digest: 'dig', name: 'a.bin', size_bytes: 15, chunk_count: 3, created_at: 7 };
      assert.deepEqual(await store().files.commitUpload(p, 'up1', file), { created: true });
      await store().files.stageChunk(p, 'up2', 0, Buffer.from('other'));
      assert.deepEqual(await store().files.commitUpload(p, 'up2', { ...file, name: 'b.bin' }), { created: false });
      assert.deepEqual(await store().files.find(p, 'dig'), { project_id: p, ...file });
      const read: Buffer[] = [];
      for await (const chunk of store().files.readChunks(p, 'dig')) read.push(chunk);
      assert.deepEqual(Buffer.concat(read), Buffer.concat(bytes.map((b) => Buffer.from(b))));
      assert.equal(await store().files.totalSize(p), 15);
      assert.equal(await store().files.find(freshProject(), 'dig'), null);
    }),
  );

  test(
    'a discarded upload leaves nothing (committing it is refused); unknown files read as empty',
    guard(async () => {
      const p = freshProject();
      await store().files.stageChunk(p, 'up', 0, Buffer.from('x'));
      await store().files.discardUpload(p, 'up');
      await assert.rejects(
        store().files.commitUpload(p, 'up', { digest: 'd', name: null, size_bytes: 1, chunk_count: 1, created_at: 1 }),
        ConflictError,
      );
      assert.equal(await store().files.find(p, 'd'), null);
      const none: Buffer[] = [];
      for await (const chunk of store().files.readChunks(p, 'unknown')) none.push(chunk);
      assert.deepEqual(none, []);
      assert.equal(await store().files.totalSize(freshProject()), 0);
    }),
  );
});
