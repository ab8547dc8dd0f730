import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** Feedback fields in calls queries: `feedback.[type].payload.<path>`, `.runnable_ref` (docs/spec/calls.md §5.2). */

async function call(h: TestApp, id: string): Promise<void> {
  assert.equal((await h.post('/call/start', makeStart({ id }))).statusCode, 200);
  assert.equal((await h.post('/call/end', makeEnd(id))).statusCode, 200);
}

async function feedback(h: TestApp, id: string, body: Record<string, unknown>): Promise<void> {
  const res = await h.post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/${id}`,
    ...body,
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function ids(h: TestApp, body: Record<string, unknown>): Promise<string[]> {
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return parseJsonl(res.body).map((c) => c.id as string);
}

test('filter and sort calls by their feedback', async (t) => {
  const h = await buildTestApp(t);
  for (const id of ['a', 'b', 'c']) await call(h, id);
  await feedback(h, 'a', { feedback_type: 'score', payload: { value: 0.9, label: 'good' } });
  await feedback(h, 'b', { feedback_type: 'score', payload: { value: 0.2, label: 'bad' } });
  await feedback(h, 'b', { feedback_type: 'wandb.reaction.1', payload: { emoji: '👍' } });
  await feedback(h, 'c', {
    feedback_type: 'wandb.runnable.judge',
    runnable_ref: `weave:///${PROJECT}/op/judge:d1`,
    call_ref: `weave:///${PROJECT}/call/x`,
    payload: { output: { ok: true } },
  });
  const gt = (path: string, value: number) => ({ $expr: { $gt: [{ $getField: path }, { $literal: value }] } });
  assert.deepEqual(await ids(h, { query: gt('feedback.[score].payload.value', 0.5) }), ['a']);
  assert.deepEqual(
    await ids(h, {
      query: {
        $expr: { $eq: [{ $getField: 'feedback.[wandb.reaction.1].payload.alias' }, { $literal: ':thumbs_up:' }] },
      },
    }),
    ['b'],
  );
  assert.deepEqual(
    await ids(h, {
      query: {
        $expr: { $eq: [{ $getField: 'feedback.[*].runnable_ref' }, { $literal: `weave:///${PROJECT}/op/judge:d1` }] },
      },
    }),
    ['c'],
  );
  assert.deepEqual(
    await ids(h, {
      query: {
        $expr: { $eq: [{ $getField: 'feedback.[wandb.runnable.judge].payload.output.ok' }, { $literal: true }] },
      },
    }),
    ['c'],
  );
  assert.deepEqual(await ids(h, { sort_by: [{ field: 'feedback.[score].payload.label', direction: 'asc' }] }), [
    'b',
    'a',
    'c',
  ]);
  // the first record of a type counts, and a call without one has '' for the ref fields
  await feedback(h, 'a', { feedback_type: 'score', payload: { value: 0.1, label: 'later' } });
  assert.deepEqual(await ids(h, { query: gt('feedback.[score].payload.value', 0.5) }), ['a']);
  assert.deepEqual(
    await ids(h, { query: { $expr: { $eq: [{ $getField: 'feedback.[*].trigger_ref' }, { $literal: '' }] } } }),
    ['a', 'b', 'c'],
  );
  const count = await h.post('/calls/query_stats', {
    project_id: PROJECT,
    query: gt('feedback.[score].payload.value', 0),
  });
  assert.equal(count.json().count, 2);
});
