import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { fixtureApp, queryIds, readCall } from './calls-fixture.js';

/** docs/spec/calls.md §3: how start, end, update and delete parts merge, and the §3.1 delete cascade. */

test('§3 end before start in separate requests: invisible everywhere until the start arrives', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/end', makeEnd('e1', { ended_at: '2025-01-01T10:00:03Z', exception: 'late', output: [1, 2] }));
  assert.equal(await readCall(h, 'e1'), null);
  assert.deepEqual(await queryIds(h, {}), []);
  assert.deepEqual((await h.post('/calls/query_stats', { project_id: PROJECT })).json(), {
    count: 0,
    total_storage_size_bytes: null,
    has_more: null,
  });
  await h.post('/call/start', makeStart({ id: 'e1' }));
  const call = await readCall(h, 'e1');
  assert.deepEqual(call?.output, [1, 2]);
  assert.equal(call?.exception, 'late');
  assert.equal(call?.summary.weave.status, 'error');
  assert.equal(call?.summary.weave.latency_ms, 3000);
  assert.equal((await h.post('/calls/query_stats', { project_id: PROJECT })).json().count, 1);
});

test('§3 duplicate start: the later start replaces start-side fields, the end stays', async (t) => {
  const h = await buildTestApp(t);
  await h.post(
    '/call/start',
    makeStart({ id: 'd1', op_name: 'first', inputs: { v: 1 }, attributes: { a: 1 }, parent_id: 'p', thread_id: 'th' }),
  );
  await h.post('/call/end', makeEnd('d1', { output: 'out' }));
  await h.post(
    '/call/start',
    makeStart({ id: 'd1', op_name: 'second', inputs: { v: 2 }, started_at: '2025-01-01T09:59:00Z' }),
  );
  const call = await readCall(h, 'd1');
  assert.equal(call?.op_name, 'second');
  assert.deepEqual(call?.inputs, { v: 2 });
  assert.deepEqual(call?.attributes, {});
  assert.equal(call?.parent_id, null);
  assert.equal(call?.thread_id, null);
  assert.equal(call?.started_at, '2025-01-01T09:59:00Z');
  assert.equal(call?.output, 'out');
  assert.equal(call?.summary.weave.latency_ms, 61000);
  assert.equal(call?.summary.weave.trace_name, 'second');
  assert.deepEqual(await queryIds(h, {}), ['d1']);
});

test('§3 duplicate end: the later end replaces end-side fields', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'd2' }));
  await h.post(
    '/call/end',
    makeEnd('d2', {
      exception: 'boom',
      output: 'first',
      summary: { usage: { m: { requests: 1 } } },
      wb_run_step_end: 4,
    }),
  );
  await h.post('/call/end', makeEnd('d2', { ended_at: '2025-01-01T10:00:05Z', output: 'second', summary: {} }));
  const call = await readCall(h, 'd2');
  assert.equal(call?.output, 'second');
  assert.equal(call?.exception, null);
  assert.equal(call?.wb_run_step_end, null);
  assert.equal(call?.ended_at, '2025-01-01T10:00:05Z');
  assert.deepEqual(call?.summary, { weave: { status: 'success', latency_ms: 5000, trace_name: 'chat' } });
});

test('§3 a start (and an end) for a deleted id is accepted but the call stays deleted', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c-0004'] })).json(), {
    num_deleted: 1,
  });
  const start = await h.post('/call/start', makeStart({ id: 'c-0004' }));
  assert.equal(start.statusCode, 200);
  const end = await h.post('/call/end', makeEnd('c-0004'));
  assert.equal(end.statusCode, 200);
  assert.equal(await readCall(h, 'c-0004'), null);
  assert.deepEqual(await queryIds(h, {}), ['c-0001', 'c-0002', 'c-0003']);
  // deleting an id that was never written is remembered: its later start stays invisible too
  assert.deepEqual((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['future', 'future'] })).json(), {
    num_deleted: 1,
  });
  await h.post('/call/start', makeStart({ id: 'future' }));
  assert.equal(await readCall(h, 'future'), null);
});

test('§3 an update before the start applies when the start arrives; an orphan update stays invisible', async (t) => {
  const h = await buildTestApp(t);
  const update = await h.post('/call/update', { project_id: PROJECT, call_id: 'u1', display_name: 'Renamed early' });
  assert.equal(update.statusCode, 200);
  assert.deepEqual(update.json(), {});
  assert.equal(await readCall(h, 'u1'), null);
  await h.post('/call/update', { project_id: PROJECT, call_id: 'orphan', display_name: 'x' });
  await h.post('/call/start', makeStart({ id: 'u1' }));
  const call = await readCall(h, 'u1');
  assert.equal(call?.display_name, 'Renamed early');
  assert.equal(call?.summary.weave.display_name, 'Renamed early');
  assert.deepEqual(await queryIds(h, {}), ['u1']);
  // a rename after the start, then a duplicate start without a name, keeps the rename (latest non-null name)
  await h.post('/call/update', { project_id: PROJECT, call_id: 'u1', display_name: 'Later' });
  await h.post('/call/start', makeStart({ id: 'u1' }));
  assert.equal((await readCall(h, 'u1'))?.display_name, 'Later');
});

test('§4.5 display_name "" is stored and reads back as null with a trace_name', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'u2', display_name: 'Named' }));
  await h.post('/call/update', { project_id: PROJECT, call_id: 'u2', display_name: '' });
  const call = await readCall(h, 'u2');
  assert.equal(call?.display_name, null);
  assert.deepEqual(call?.summary.weave, { status: 'running', trace_name: 'chat' });
  const unknown = await h.post('/call/update', {
    project_id: PROJECT,
    call_id: 'nobody',
    display_name: 'n',
    wb_user_id: 'spoof',
  });
  assert.equal(unknown.statusCode, 200);
});

test('§3 project isolation: the same id in two projects denotes two calls', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'same', inputs: { p: 'demo' } }));
  await h.post('/call/start', makeStart({ id: 'same', project_id: 'acme/other', inputs: { p: 'other' } }));
  await h.post('/call/end', makeEnd('same', { project_id: 'acme/other', output: 'other-out' }));
  await h.post('/call/end', makeEnd('only-end', { project_id: 'acme/other' }));
  await h.post('/call/start', makeStart({ id: 'only-end' }));
  await h.post('/call/update', { project_id: 'acme/other', call_id: 'same', display_name: 'Other name' });
  const demo = await readCall(h, 'same');
  assert.deepEqual(demo?.inputs, { p: 'demo' });
  assert.equal(demo?.output, null);
  assert.equal(demo?.display_name, null);
  assert.equal(demo?.project_id, PROJECT);
  const other = await readCall(h, 'same', {}, 'acme/other');
  assert.deepEqual(other?.inputs, { p: 'other' });
  assert.equal(other?.output, 'other-out');
  assert.equal(other?.display_name, 'Other name');
  assert.equal(other?.project_id, 'acme/other');
  assert.equal((await readCall(h, 'only-end'))?.ended_at, null);
  assert.equal(await readCall(h, 'only-end', {}, 'acme/other'), null);
  await h.post('/calls/delete', { project_id: 'acme/other', call_ids: ['same'] });
  assert.notEqual(await readCall(h, 'same'), null);
  assert.equal(await readCall(h, 'same', {}, 'acme/other'), null);
  assert.equal((await h.post('/call/read', { project_id: 'other/x', id: 'same' }, h.bobKey)).json().call, null);
});

test('§2.8 wb_user_id is the caller, whatever the client sends', async (t) => {
  const h = await buildTestApp(t);
  await h.post(
    '/call/start',
    makeStart({ id: 'w1', wb_user_id: 'spoofed', wb_run_id: 'acme/demo/run1', wb_run_step: 3 }),
  );
  await h.post('/call/end', makeEnd('w1', { wb_run_step_end: 9 }));
  const call = await readCall(h, 'w1');
  assert.notEqual(call?.wb_user_id, 'spoofed');
  assert.equal(typeof call?.wb_user_id, 'string');
  assert.equal(call?.wb_run_id, 'acme/demo/run1');
  assert.equal(call?.wb_run_step, 3);
  assert.equal(call?.wb_run_step_end, 9);
  assert.equal(call?.wb_username, null);
  const named = await h.post('/calls/stream_query', { project_id: PROJECT, include_usernames: true });
  assert.equal(JSON.parse(named.body).wb_username, 'alice');
});

test('§3.1 delete cascade: descendants within the trace, counts include unknown and repeated ids', async (t) => {
  const h = await buildTestApp(t);
  const tree: Array<[string, string | null, string]> = [
    ['root', null, 'root'],
    ['a', 'root', 'root'],
    ['a1', 'a', 'root'],
    ['a2', 'a', 'root'],
    ['b', 'root', 'root'],
    ['stray', 'a', 'other-trace'],
  ];
  for (const [id, parent, trace] of tree)
    await h.post('/call/start', makeStart({ id, parent_id: parent, trace_id: trace }));
  const res = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['a', 'a', 'ghost'] });
  assert.deepEqual(res.json(), { num_deleted: 4 });
  assert.deepEqual((await queryIds(h, {})).sort(), ['b', 'root', 'stray']);
  const again = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['a', 'b'] });
  assert.deepEqual(again.json(), { num_deleted: 2 });
  assert.deepEqual((await queryIds(h, {})).sort(), ['root', 'stray']);
  assert.deepEqual((await h.post('/calls/delete', { project_id: PROJECT, call_ids: [] })).json(), { num_deleted: 0 });
  const child = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['stray'] });
  assert.deepEqual(child.json(), { num_deleted: 1 });
  assert.notEqual(await readCall(h, 'root'), null);
});

test('§1 timestamps: offsets, naive, date-only and Unix seconds are accepted; microseconds kept, finer digits cut', async (t) => {
  const h = await buildTestApp(t);
  const cases: Array<[unknown, string]> = [
    ['2025-01-01T12:00:00+02:00', '2025-01-01T10:00:00Z'],
    ['2025-01-01T10:00:00', '2025-01-01T10:00:00Z'],
    ['2025-01-01', '2025-01-01T00:00:00Z'],
    ['2025-01-01T10:00:00.1234569Z', '2025-01-01T10:00:00.123456Z'],
    [1735725600, '2025-01-01T10:00:00Z'],
    [1735725600.25, '2025-01-01T10:00:00.250000Z'],
    [1735725600.123456, '2025-01-01T10:00:00.123456Z'],
  ];
  for (const [i, [sent, expected]] of cases.entries()) {
    const res = await h.post('/call/start', makeStart({ id: `t${i}`, started_at: sent }));
    assert.equal(res.statusCode, 200, `${String(sent)}: ${res.body}`);
    assert.equal((await readCall(h, `t${i}`))?.started_at, expected, String(sent));
  }
  for (const bad of ['2025-13-01T00:00:00Z', '2025-02-30', 'yesterday', '2025-01-01T10:00:00+05:75', true, 1e20]) {
    const res = await h.post('/call/start', makeStart({ id: 'bad', started_at: bad }));
    assert.equal(res.statusCode, 422, String(bad));
    assert.match(res.json().detail[0].type, /^datetime_/);
    assert.deepEqual(res.json().detail[0].loc, ['body', 'start', 'started_at']);
  }
});
