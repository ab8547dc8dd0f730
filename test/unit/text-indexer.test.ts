import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { CallTextIndexer } from '../../src/services/call-indexes/text-indexer.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { BackgroundLog } from '../../src/domain/log.js';
import { end, ids, start, where } from '../store/contract/parts.js';

/** A migrated SQLite store in a temporary folder, closed and removed after the test; and a log that keeps its messages. */
async function openStore(t: TestContext): Promise<{ store: SqliteStore; lines: string[]; log: BackgroundLog }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-text-indexer-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await store.migrate();
  const lines: string[] = [];
  const log = { info: (_o: unknown, m: string) => lines.push(m), warn: (_o: unknown, m: string) => lines.push(m) };
  return { store, lines, log: log as unknown as BackgroundLog };
}

/** The background indexer on a real store: it catches up, logs, stops, and a new one continues. */
test('the text indexer indexes what was written, logs when caught up, and resumes after a restart', async (t) => {
  const { store, lines, log } = await openStore(t);
  const parts = [];
  for (let i = 0; i < 2_500; i++)
    parts.push(
      start('acme/p', `c-${i}`, { inputs: JSON.stringify({ user: `user-${i}` }) }),
      end('acme/p', `c-${i}`, { output: JSON.stringify({ answer: `answer ${i}` }) }),
    );
  await store.calls.write(parts);

  const waitCovered = async (indexer: CallTextIndexer): Promise<void> => {
    indexer.start(log);
    for (let i = 0; i < 500 && !lines.includes('call text index: caught up'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await indexer.stop();
  };
  await waitCovered(new CallTextIndexer(store, { idleMs: 10 }));
  assert.ok(lines.includes('call text index: caught up'));
  assert.equal(await store.callText.covers('acme/p'), true);
  assert.deepEqual(await store.callText.step(), { calls: 0, project: null });
  const contains = (path: string, substr: string) =>
    ids(store, {
      project_id: 'acme/p',
      where: where({ $contains: { input: { $getField: path }, substr: { $literal: substr } } }),
    });
  assert.deepEqual(await contains('inputs.user', 'user-2499'), ['c-2499']);
  assert.deepEqual(await contains('output.answer', 'wer 1234'), ['c-1234']);

  // written while no indexer runs: the next one (a restarted node) takes it from the marks
  await store.calls.write([start('acme/p', 'late', { inputs: JSON.stringify({ user: 'user-late' }) })]);
  assert.deepEqual(await contains('inputs.user', 'user-late'), ['late']);
  lines.length = 0;
  await waitCovered(new CallTextIndexer(store, { idleMs: 10 }));
  assert.deepEqual(await store.callText.step(), { calls: 0, project: null });
  assert.deepEqual(await contains('inputs.user', 'user-late'), ['late']);
});

/** Under ingest without a pause the indexer still keeps its share: it reaches calls while writes keep coming. */
test('the text indexer progresses while call writes never stop', async (t) => {
  const { store, log } = await openStore(t);
  const indexer = new CallTextIndexer(store, { idleMs: 10 });
  let written = 0;
  let writing = true;
  // eight writers, each with its next write queued as soon as the last one committed
  const writers = Array.from({ length: 8 }, async (_, w) => {
    while (writing) {
      const id = `w${w}-${written++}`;
      await store.calls.write([start('acme/busy', id, { inputs: JSON.stringify({ user: `user-${id}` }) })]);
    }
  });
  indexer.start(log);
  const contains = (substr: string) =>
    ids(store, {
      project_id: 'acme/busy',
      where: where({ $contains: { input: { $getField: 'inputs.user' }, substr: { $literal: substr } } }),
    });
  try {
    // wait (bounded) until a step has covered the project while the writers are still at it
    for (let i = 0; i < 1_000 && !(await store.callText.covers('acme/busy')); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await store.callText.covers('acme/busy'), true);
    assert.ok(store.load().pendingCallWrites > 0 || writing, 'the writers were still writing');
  } finally {
    writing = false;
    await Promise.all(writers);
    await indexer.stop();
  }
  assert.deepEqual(await contains('user-w0-0'), ['w0-0']);
});
