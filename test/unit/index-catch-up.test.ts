import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { CATCH_UP_CALLS, continuationOf } from '../../src/store/sqlite/index-catch-up.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { until } from '../helpers/until.js';
import { end, ids, start, where } from '../store/contract/parts.js';

/** Issue 30: the SQLite writer carries on the call indexer's steps while the main thread is busy. */

async function openStore(t: TestContext, indexCatchUp: boolean): Promise<{ store: SqliteStore; file: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-catch-up-'));
  const file = path.join(dir, 'heddle.sqlite');
  const store = new SqliteStore({ file, indexCatchUp });
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await store.migrate();
  return { store, file };
}

/** The project's calls the text index has not reached (after its mark in call_text_marks). */
function unindexed(file: string, project: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT COUNT(*) AS n FROM calls t LEFT JOIN call_text_marks m ON m.project_id = t.project_id
         WHERE t.project_id = ? AND (m.project_id IS NULL OR (t.change_seq, t.id) > (m.indexed_seq, m.indexed_id))`,
      )
      .get(project) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function writeCalls(store: SqliteStore, project: string, n: number): Promise<void> {
  const parts = [];
  for (let i = 0; i < n; i++)
    parts.push(
      start(project, `c-${String(i).padStart(5, '0')}`, { inputs: JSON.stringify({ user: `user-${i % 7}` }) }),
      end(project, `c-${String(i).padStart(5, '0')}`, { output: JSON.stringify({ answer: `answer ${i}` }) }),
    );
  await store.calls.write(parts);
}

test('a text step that found a full batch continues in short steps; any other step does not', () => {
  const step = { kind: 'text' as const, maxCalls: 1_000, after: 'acme/a' };
  assert.deepEqual(continuationOf(step, { calls: 1_000, project: 'acme/b' }), {
    kind: 'text',
    maxCalls: CATCH_UP_CALLS,
    after: 'acme/a',
  });
  assert.equal(continuationOf(step, { calls: 999, project: 'acme/b' }), null, 'the project is done');
  assert.equal(continuationOf(step, { calls: 0, project: null }), null, 'nothing waits');
  assert.ok(continuationOf(step, { calls: 0, project: 'acme/b' }), 'a first step (the mark) of a project');
  assert.equal(continuationOf({ ...step, kind: 'cost' }, { calls: 1_000, project: 'acme/b', kind: 'cost' }), null);
  assert.equal(continuationOf({ ...step, maxCalls: 9 }, { calls: 9, project: 'acme/b' })?.maxCalls, 9);
});

test('after one step asked for, the writer indexes the whole project by itself; answers are unchanged', async (t) => {
  const project = 'acme/catch-up';
  const calls = 3_000;
  const { store, file } = await openStore(t, true);
  await writeCalls(store, project, calls);
  const query = { project_id: project, where: where({ $eq: [{ $getField: 'inputs.user' }, { $literal: 'user-3' }] }) };
  const before = await ids(store, query);
  assert.equal(unindexed(file, project), calls);

  assert.equal((await store.callText.step(1_000)).project, project, 'its first step: the mark');
  // no other step is asked for: the writer carries on while it has no writes
  await until('the writer to index every call', async () => (unindexed(file, project) === 0 ? true : null), 60_000);
  assert.deepEqual(await ids(store, query), before);
  // writes still go through while it indexes, and are indexed after
  await writeCalls(store, 'acme/other', 10);
  assert.equal((await ids(store, { project_id: 'acme/other' })).length, 10);
});

test('without catch-up (what stepped tests use), one step indexes one batch and the rest waits', async (t) => {
  const project = 'acme/stepped';
  const { store, file } = await openStore(t, false);
  await writeCalls(store, project, 1_500);
  assert.equal((await store.callText.step(1_000)).calls, 0, 'its first step: the mark');
  assert.equal((await store.callText.step(1_000)).calls, 1_000);
  // a write after the step has been applied: the writer has turned since, and did not index on
  await writeCalls(store, 'acme/other', 1);
  assert.equal(unindexed(file, project), 500);
});
