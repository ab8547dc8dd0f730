import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { assertValidationBody } from './calls-fixture.js';

/** `/threads/stream_query` (docs/spec/calls.md §4.12; checklist items 36 and 37). */

interface Turn {
  id: string;
  thread: string | null;
  start: string;
  end: string | null;
  /** Defaults to the call's own id, which makes it a turn call. */
  turn?: string | null;
  parent?: string;
}

async function write(h: TestApp, turns: Turn[]): Promise<void> {
  for (const c of turns) {
    const start = makeStart({
      id: c.id,
      thread_id: c.thread,
      turn_id: c.turn === undefined ? c.id : c.turn,
      parent_id: c.parent ?? null,
      started_at: c.start,
    });
    assert.equal((await h.post('/call/start', start)).statusCode, 200);
    if (c.end !== null) assert.equal((await h.post('/call/end', makeEnd(c.id, { ended_at: c.end }))).statusCode, 200);
  }
}

async function threads(
  h: TestApp,
  body: Record<string, unknown> = {},
  key?: string,
): Promise<Array<Record<string, any>>> {
  const res = await h.post('/threads/stream_query', { project_id: PROJECT, ...body }, key);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  return parseJsonl(res.body);
}

const day = (time: string): string => `2025-01-02T${time}Z`;

const T1: Turn[] = [
  { id: 'turn-a', thread: 't-1', start: day('09:00:00'), end: day('09:00:01') },
  { id: 'turn-b', thread: 't-1', start: day('09:01:00'), end: day('09:01:03') },
  { id: 'child', thread: 't-1', turn: 'turn-a', parent: 'turn-a', start: day('09:00:00.2'), end: day('09:05:00') },
];

test('checklist 36: one line per thread from its turn calls only', async (t) => {
  const h = await buildTestApp(t);
  await write(h, T1);
  assert.deepEqual(await threads(h), [
    {
      thread_id: 't-1',
      turn_count: 2,
      start_time: '2025-01-02T09:00:00Z',
      last_updated: '2025-01-02T09:01:03Z',
      first_turn_id: 'turn-a',
      last_turn_id: 'turn-b',
      p50_turn_duration_ms: 2000,
      p99_turn_duration_ms: 2980,
    },
  ]);
});

const MANY: Turn[] = [
  ...T1,
  { id: 'x1', thread: 't-2', start: day('08:00:00'), end: day('10:00:00') },
  { id: 'y1', thread: 't-3', start: day('07:00:00'), end: day('07:00:00.5') },
  { id: 'y2', thread: 't-3', start: day('07:10:00'), end: day('07:10:01.5') },
  { id: 'y3', thread: 't-3', start: day('07:20:00'), end: null },
  { id: 'z1', thread: 't-0', start: day('08:30:00'), end: day('10:00:00') },
  { id: 'running-only', thread: 't-4', start: day('06:00:00'), end: null },
  { id: 'no-thread', thread: null, start: day('06:00:00'), end: day('06:00:01') },
  { id: 'empty-thread', thread: '', start: day('06:00:00'), end: day('06:00:01') },
];

const ids = (lines: Array<Record<string, any>>): string[] => lines.map((l) => l.thread_id);

test('default order is last_updated desc with ties by thread_id; running-only and thread-less calls are left out', async (t) => {
  const h = await buildTestApp(t);
  await write(h, MANY);
  const lines = await threads(h);
  assert.deepEqual(ids(lines), ['t-0', 't-2', 't-1', 't-3']);
  const t3 = lines[3]!;
  // the running turn counts, its duration does not
  assert.equal(t3.turn_count, 3);
  assert.equal(t3.last_turn_id, 'y2');
  assert.equal(t3.first_turn_id, 'y1');
  assert.equal(t3.p50_turn_duration_ms, 1000);
  assert.equal(t3.p99_turn_duration_ms, 1490);
});

test('checklist 37: an unsupported sort field → 400 with a reason', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/threads/stream_query', {
    project_id: PROJECT,
    sort_by: [{ field: 'bogus', direction: 'asc' }],
  });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().reason, 'Unsupported sort field: bogus');
  const badDirection = await h.post('/threads/stream_query', {
    project_id: PROJECT,
    sort_by: [{ field: 'turn_count', direction: 'up' }],
  });
  assert.equal(badDirection.statusCode, 422);
  assertValidationBody(badDirection.json());
});

test('sorting by every allowed field, ties broken by thread_id ascending', async (t) => {
  const h = await buildTestApp(t);
  await write(h, MANY);
  const sorted = async (field: string, direction: string): Promise<string[]> =>
    ids(await threads(h, { sort_by: [{ field, direction }] }));
  assert.deepEqual(await sorted('thread_id', 'desc'), ['t-3', 't-2', 't-1', 't-0']);
  assert.deepEqual(await sorted('turn_count', 'desc'), ['t-3', 't-1', 't-0', 't-2']);
  assert.deepEqual(await sorted('turn_count', 'asc'), ['t-0', 't-2', 't-1', 't-3']);
  assert.deepEqual(await sorted('start_time', 'asc'), ['t-3', 't-2', 't-0', 't-1']);
  assert.deepEqual(await sorted('last_updated', 'asc'), ['t-3', 't-1', 't-0', 't-2']);
  assert.deepEqual(await sorted('p50_turn_duration_ms', 'desc'), ['t-2', 't-0', 't-1', 't-3']);
  assert.deepEqual(await sorted('p99_turn_duration_ms', 'asc'), ['t-3', 't-1', 't-0', 't-2']);
  const twoKeys = await threads(h, {
    sort_by: [
      { field: 'last_updated', direction: 'desc' },
      { field: 'thread_id', direction: 'desc' },
    ],
  });
  assert.deepEqual(ids(twoKeys), ['t-2', 't-0', 't-1', 't-3']);
});

test('limit and offset page the sorted threads; negative values → 400', async (t) => {
  const h = await buildTestApp(t);
  await write(h, MANY);
  assert.deepEqual(ids(await threads(h, { limit: 2 })), ['t-0', 't-2']);
  assert.deepEqual(ids(await threads(h, { limit: 2, offset: 1 })), ['t-2', 't-1']);
  assert.deepEqual(ids(await threads(h, { offset: 3 })), ['t-3']);
  assert.deepEqual(ids(await threads(h, { limit: 0 })), ['t-0', 't-2', 't-1', 't-3']);
  assert.deepEqual(await threads(h, { offset: 10 }), []);
  for (const body of [{ limit: -1 }, { offset: -1 }])
    assert.equal((await h.post('/threads/stream_query', { project_id: PROJECT, ...body })).statusCode, 400);
});

test('filters: thread_ids, and after/before_datetime on the turns’ start (both exclusive)', async (t) => {
  const h = await buildTestApp(t);
  await write(h, MANY);
  assert.deepEqual(ids(await threads(h, { filter: { thread_ids: ['t-3', 't-1', 'nope'] } })), ['t-1', 't-3']);
  assert.deepEqual(ids(await threads(h, { filter: { thread_ids: [] } })), ['t-0', 't-2', 't-1', 't-3']);
  // after 07:00:00 exactly: y1 (07:00:00) is out, so t-3 has y2 and the running y3
  const after = await threads(h, {
    filter: { after_datetime: day('07:00:00') },
    sort_by: [{ field: 'thread_id', direction: 'asc' }],
  });
  assert.deepEqual(ids(after), ['t-0', 't-1', 't-2', 't-3']);
  assert.equal(after[3]!.turn_count, 2);
  assert.equal(after[3]!.first_turn_id, 'y2');
  const before = await threads(h, { filter: { before_datetime: day('09:01:00') } });
  assert.deepEqual(ids(before), ['t-0', 't-2', 't-1', 't-3']);
  assert.equal(before[2]!.turn_count, 1);
  assert.equal(before[2]!.last_updated, '2025-01-02T09:00:01Z');
  const window = await threads(h, { filter: { after_datetime: day('07:30:00'), before_datetime: day('08:45:00') } });
  assert.deepEqual(ids(window), ['t-0', 't-2']);
  const far = await h.post('/threads/stream_query', { project_id: PROJECT, filter: { after_datetime: 1e15 } });
  assert.equal(far.statusCode, 400, 'an instant past year 9999 is refused');
  const strict = await h.post('/threads/stream_query', { project_id: PROJECT, filter: { thread_id: ['t-1'] } });
  assert.equal(strict.statusCode, 422);
  assert.equal(assertValidationBody(strict.json())[0]!.type, 'extra_forbidden');
});

test('deleted turns are left out; no threads → empty body', async (t) => {
  const h = await buildTestApp(t);
  await write(h, T1);
  assert.equal((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['turn-b'] })).statusCode, 200);
  const [t1] = await threads(h);
  assert.ok(t1 !== undefined);
  assert.equal(t1.turn_count, 1);
  assert.equal(t1.last_turn_id, 'turn-a');
  assert.equal(t1.p99_turn_duration_ms, 1000);
  assert.equal((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['turn-a'] })).statusCode, 200);
  const res = await h.post('/threads/stream_query', { project_id: PROJECT });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, '');
});

test('tenancy: bob cannot query acme/demo threads (403)', async (t) => {
  const h = await buildTestApp(t);
  await write(h, T1);
  const res = await h.post('/threads/stream_query', { project_id: PROJECT }, h.bobKey);
  assert.equal(res.statusCode, 403);
  assert.equal(typeof res.json().reason, 'string');
});
