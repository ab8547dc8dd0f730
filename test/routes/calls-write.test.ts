import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { assertValidationBody, fixtureApp, queryIds, readCall } from './calls-fixture.js';

/** docs/spec/calls.md §7 checklist items 1–15 (writes, reads, update, delete). */

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('checklist 1: /call/start echoes the sent id and trace_id', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/call/start', makeStart({ id: 'x1', trace_id: 'x1' }));
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { id: 'x1', trace_id: 'x1' });
});

test('checklist 2: /call/start without ids generates two distinct UUIDv7s', async (t) => {
  const h = await buildTestApp(t);
  const { start } = makeStart();
  delete start.id;
  delete start.trace_id;
  const res = await h.post('/call/start', { start });
  assert.equal(res.statusCode, 200);
  const { id, trace_id } = res.json();
  assert.match(id, UUID_V7);
  assert.match(trace_id, UUID_V7);
  assert.equal(id.length, 36);
  assert.notEqual(id, trace_id);
  const call = await readCall(h, id);
  assert.equal(call?.trace_id, trace_id);
});

test('checklist 3: an unknown key beside start → 422 extra_forbidden at ["body","foo"]', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/call/start', { ...makeStart({ id: 'x' }), foo: 1 });
  assert.equal(res.statusCode, 422);
  const detail = assertValidationBody(res.json());
  assert.ok(
    detail.some((d) => d.type === 'extra_forbidden' && JSON.stringify(d.loc) === '["body","foo"]'),
    res.body,
  );
  assert.equal(await readCall(h, 'x'), null);
});

test('checklist 4: a start without started_at → 422 missing at ["body","start","started_at"]', async (t) => {
  const h = await buildTestApp(t);
  const { start } = makeStart({ id: 'x' });
  delete start.started_at;
  const res = await h.post('/call/start', { start });
  assert.equal(res.statusCode, 422);
  const detail = assertValidationBody(res.json());
  assert.ok(
    detail.some((d) => d.type === 'missing' && JSON.stringify(d.loc) === '["body","start","started_at"]'),
    res.body,
  );
});

test('checklist 5: a started call reads back running, without latency', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'r1' }));
  const call = await readCall(h, 'r1');
  assert.ok(call);
  assert.equal(call.ended_at, null);
  assert.equal(call.output, null);
  assert.equal(call.summary.weave.status, 'running');
  assert.equal('latency_ms' in call.summary.weave, false);
  assert.deepEqual(Object.keys(call).sort(), [
    'attributes',
    'deleted_at',
    'display_name',
    'ended_at',
    'exception',
    'expire_at',
    'id',
    'inputs',
    'op_name',
    'output',
    'parent_id',
    'project_id',
    'started_at',
    'storage_size_bytes',
    'summary',
    'thread_id',
    'total_storage_size_bytes',
    'trace_id',
    'turn_id',
    'wb_run_id',
    'wb_run_step',
    'wb_run_step_end',
    'wb_user_id',
    'wb_username',
  ]);
});

test('checklist 6: start 10:00:00Z, end 10:00:02.5Z → latency 2500, success, 6-digit fraction', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'l1', started_at: '2025-01-01T10:00:00Z' }));
  await h.post('/call/end', makeEnd('l1', { ended_at: '2025-01-01T10:00:02.5Z' }));
  const call = await readCall(h, 'l1');
  assert.equal(call?.summary.weave.latency_ms, 2500);
  assert.equal(call?.summary.weave.status, 'success');
  assert.equal(call?.ended_at, '2025-01-01T10:00:02.500000Z');
  assert.equal(call?.started_at, '2025-01-01T10:00:00Z');
});

test('checklist 7: an end with an exception → status error', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'e1' }));
  await h.post('/call/end', makeEnd('e1', { exception: 'boom' }));
  const call = await readCall(h, 'e1');
  assert.equal(call?.exception, 'boom');
  assert.equal(call?.summary.weave.status, 'error');
});

test('checklist 8: status_counts.error > 0 → descendant_error, status_counts returned unchanged', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'd1' }));
  await h.post('/call/end', makeEnd('d1', { summary: { status_counts: { error: 1, success: 3 } } }));
  const call = await readCall(h, 'd1');
  assert.equal(call?.summary.weave.status, 'descendant_error');
  assert.deepEqual(call?.summary.status_counts, { error: 1, success: 3 });
});

test('checklist 9: /call/read of an id never written → 200 {"call":null}', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/call/read', { project_id: PROJECT, id: 'never' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { call: null });
});

test('checklist 10: an end without a start is stored invisibly and merges when the start arrives', async (t) => {
  const h = await buildTestApp(t);
  const end = await h.post('/call/end', makeEnd('x2', { output: { answer: 42 } }));
  assert.equal(end.statusCode, 200);
  assert.deepEqual(end.json(), {});
  assert.equal(await readCall(h, 'x2'), null);
  assert.deepEqual(await queryIds(h, {}), []);
  await h.post('/call/start', makeStart({ id: 'x2', inputs: { q: 'life' } }));
  const call = await readCall(h, 'x2');
  assert.deepEqual(call?.inputs, { q: 'life' });
  assert.deepEqual(call?.output, { answer: 42 });
  assert.equal(call?.summary.weave.status, 'success');
});

test('checklist 11: /call/upsert_batch [end x3, start x3] answers per item and x3 reads back complete', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/call/upsert_batch', {
    batch: [
      { mode: 'end', req: makeEnd('x3', { output: 'done' }) },
      { mode: 'start', req: makeStart({ id: 'x3', inputs: { a: 1 } }) },
    ],
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { res: [{}, { id: 'x3', trace_id: 'x3' }] });
  const call = await readCall(h, 'x3');
  assert.deepEqual(call?.inputs, { a: 1 });
  assert.equal(call?.output, 'done');
  assert.equal(call?.ended_at, '2025-01-01T10:00:01Z');
});

test('checklist 12: trace_name from an op ref; display_name replaces it', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'n1', op_name: 'weave:///acme/demo/op/answer:abc' }));
  await h.post(
    '/call/start',
    makeStart({ id: 'n2', op_name: 'weave:///acme/demo/op/answer:abc', display_name: 'Nice' }),
  );
  const plain = await readCall(h, 'n1');
  assert.equal(plain?.summary.weave.trace_name, 'answer');
  assert.equal('display_name' in plain!.summary.weave, false);
  const named = await readCall(h, 'n2');
  assert.equal(named?.summary.weave.display_name, 'Nice');
  assert.equal(named?.display_name, 'Nice');
  assert.equal('trace_name' in named!.summary.weave, false);
});

test('checklist 13: /call/update renames; without display_name → 400 with a reason', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/call/update', { project_id: PROJECT, call_id: 'c-0001', display_name: 'Renamed' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), {});
  const call = await readCall(h, 'c-0001');
  assert.equal(call?.display_name, 'Renamed');
  assert.equal(call?.summary.weave.display_name, 'Renamed');
  const bad = await h.post('/call/update', { project_id: PROJECT, call_id: 'c-0001' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().reason, 'One of [display_name] is required for call update');
  const nulled = await h.post('/call/update', { project_id: PROJECT, call_id: 'c-0001', display_name: null });
  assert.equal(nulled.statusCode, 400);
});

test('checklist 14: deleting c-0001 cascades to c-0002', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c-0001'] });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { num_deleted: 2 });
  assert.deepEqual(await queryIds(h, {}), ['c-0003', 'c-0004']);
  assert.equal(await readCall(h, 'c-0002'), null);
  assert.equal(await readCall(h, 'c-0001'), null);
});

test('checklist 15: /calls/delete with 1001 ids → 413 Request too large', async (t) => {
  const h = await fixtureApp(t);
  const ids = Array.from({ length: 1001 }, (_, i) => `id-${i}`);
  ids[0] = 'c-0001';
  const res = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ids });
  assert.equal(res.statusCode, 413);
  assert.deepEqual(res.json(), { reason: 'Request too large' });
  assert.notEqual(await readCall(h, 'c-0001'), null);
  const ok = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ids.slice(0, 1000) });
  assert.deepEqual(ok.json(), { num_deleted: 1001 });
});
