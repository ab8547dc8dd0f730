import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConflictError } from '../../../src/errors/app-error.js';
import { ObjectNotFoundError } from '../../../src/errors/object-errors.js';
import type { TraceStore } from '../../../src/store/types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

async function bytesOf(store: TraceStore, project: string, digest: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of store.files.readChunks(project, digest)) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** Stages `chunks` (in the given order of sequence numbers) and commits them under `digest`. */
async function upload(
  store: TraceStore,
  project: string,
  uploadId: string,
  digest: string,
  chunks: [seq: number, text: string][],
): Promise<boolean> {
  for (const [seq, text] of chunks) await store.files.stageChunk(project, uploadId, seq, Buffer.from(text, 'utf8'));
  const size = chunks.reduce((n, [, text]) => n + Buffer.byteLength(text), 0);
  const outcome = await store.files.commitUpload(project, uploadId, {
    digest,
    name: `${digest}.txt`,
    size_bytes: size,
    chunk_count: chunks.length,
    created_at: 7,
  });
  return outcome.created;
}

forEachAdapter('file store', (store) => {
  test(
    'a committed upload is found by digest and read back in chunk order',
    guard(async () => {
      const project = freshProject();
      assert.equal(
        await upload(store(), project, 'up1', 'd1', [
          [2, 'c'],
          [0, 'a'],
          [1, 'bé'],
        ]),
        true,
      );
      assert.deepEqual(await store().files.find(project, 'd1'), {
        project_id: project,
        digest: 'd1',
        name: 'd1.txt',
        size_bytes: 5,
        chunk_count: 3,
        created_at: 7,
      });
      assert.equal(await bytesOf(store(), project, 'd1'), 'abéc');
      assert.equal(await store().files.find(project, 'unknown'), null);
      assert.equal(await bytesOf(store(), project, 'unknown'), '');
    }),
  );

  test(
    'the same digest twice keeps the first file and drops the second upload; sizes count it once',
    guard(async () => {
      const project = freshProject();
      assert.equal(await upload(store(), project, 'first', 'same', [[0, 'one']]), true);
      assert.equal(await upload(store(), project, 'second', 'same', [[0, 'two']]), false);
      assert.equal(await bytesOf(store(), project, 'same'), 'one');
      assert.equal(await upload(store(), project, 'third', 'other', [[0, '12345']]), true);
      assert.equal(await store().files.totalSize(project), 8);
      assert.equal(await store().files.totalSize(freshProject()), 0);
    }),
  );

  test(
    'files and staged uploads belong to one project; a discarded upload leaves nothing',
    guard(async () => {
      const project = freshProject();
      const other = freshProject();
      await upload(store(), project, 'up', 'd', [[0, 'mine']]);
      assert.equal(await store().files.find(other, 'd'), null);
      assert.equal(await bytesOf(store(), other, 'd'), '');
      assert.equal(await store().files.totalSize(other), 0);
      // the same upload id in another project is another upload: discarding one keeps the other
      await store().files.stageChunk(other, 'up2', 0, Buffer.from('theirs'));
      await store().files.stageChunk(project, 'up2', 0, Buffer.from('dropped'));
      await store().files.discardUpload(project, 'up2');
      const theirs = { digest: 'd', name: null, size_bytes: 6, chunk_count: 1, created_at: 8 };
      assert.deepEqual(await store().files.commitUpload(other, 'up2', theirs), { created: true });
      assert.equal(await bytesOf(store(), other, 'd'), 'theirs');
      assert.equal(await bytesOf(store(), project, 'd'), 'mine');
      // a discarded upload's chunks are gone: staging its sequence numbers again does not clash
      await store().files.stageChunk(project, 'again', 0, Buffer.from('x'));
      await store().files.discardUpload(project, 'again');
      assert.equal(await upload(store(), project, 'again', 'e', [[0, 'y']]), true);
      assert.equal(await bytesOf(store(), project, 'e'), 'y');
    }),
  );
  test(
    'a file whose project is deleted while it is read ends in not found, not in a broken file',
    guard(async () => {
      const project = freshProject();
      await upload(store(), project, 'up', 'd', [
        [0, 'first'],
        [1, 'second'],
      ]);
      const chunks = store().files.readChunks(project, 'd')[Symbol.asyncIterator]();
      assert.equal((await chunks.next()).value?.toString('utf8'), 'first');
      await store().projectData.deleteProject(project);
      await assert.rejects(chunks.next(), ObjectNotFoundError);
    }),
  );
  test(
    'a file whose chunks are gone (an upload committed while its project was deleted) reads as not found',
    guard(async () => {
      const project = freshProject();
      // a committed file whose chunks then go (dropping the upload's chunks by its id stands in for a
      // deletion that took them): what stores written before commits checked their chunks may hold
      await store().files.stageChunk(project, 'up', 0, Buffer.from('kept'));
      await store().files.stageChunk(project, 'up', 1, Buffer.from('gone'));
      const meta = { digest: 'd', name: null, size_bytes: 8, chunk_count: 2, created_at: 9 };
      await store().files.commitUpload(project, 'up', meta);
      await store().files.discardUpload(project, 'up');
      await store().files.stageChunk(project, 'up', 0, Buffer.from('kept'));
      const chunks = store().files.readChunks(project, 'd')[Symbol.asyncIterator]();
      assert.equal((await chunks.next()).value?.toString('utf8'), 'kept');
      await assert.rejects(
        chunks.next(),
        (e: Error) => e instanceof ObjectNotFoundError && /lost its contents: missing chunk 1/.test(e.message),
      );
    }),
  );
  test(
    'an upload whose chunks are gone when it commits (its project deleted meanwhile) is refused and stores nothing',
    guard(async () => {
      const project = freshProject();
      await store().files.stageChunk(project, 'cut', 0, Buffer.from('only'));
      const meta = { digest: 'cut-d', name: 'f.txt', size_bytes: 8, chunk_count: 2, created_at: 9 };
      await assert.rejects(
        store().files.commitUpload(project, 'cut', meta),
        (e: Error) =>
          e instanceof ConflictError && /lost its contents before it was stored \(1 of 2 chunks remain/.test(e.message),
      );
      assert.equal(await store().files.find(project, 'cut-d'), null);
      // what was left of it is gone too: the same upload id can be staged and committed again
      await store().files.stageChunk(project, 'cut', 0, Buffer.from('all'));
      assert.deepEqual(await store().files.commitUpload(project, 'cut', { ...meta, chunk_count: 1 }), {
        created: true,
      });
    }),
  );
});
