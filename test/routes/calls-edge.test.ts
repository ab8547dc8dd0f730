import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { expr, field, lit, queryIds, readCall } from './calls-fixture.js';

/** Corners of docs/spec/calls.md §2.6 summary derivation, §4.3 batches, §5.2 paths and §6 error bodies. */

test('§2.6 summary.weave: client keys kept except the server-owned ones; negative latency; call-ref op names', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'a', started_at: '2025-01-01T10:00:00Z' }));
  await h.post(
    '/call/end',
    makeEnd('a', {
      ended_at: '2025-01-01T09:59:58.9995Z',
      summary: {
        weave: { status: 'fake', latency_ms: 1, trace_name: 'x', display_name: 'y', custom: { k: 1 } },
        other: [1],
        status_counts: { error: 0, success: 2 },
      },
    }),
  );
  const call = await readCall(h, 'a');
  assert.deepEqual(call?.summary, {
    other: [1],
    status_counts: { error: 0, success: 2 },
    weave: { custom: { k: 1 }, status: 'success', latency_ms: -1001, trace_name: 'chat' },
  });
  assert.deepEqual(await queryIds(h, expr({ $eq: [field('summary.weave.latency_ms'), lit(-1001)] })), ['a']);
  assert.deepEqual(await queryIds(h, expr({ $eq: [field('summary.weave.status'), lit('fake')] })), []);
  await h.post('/call/start', makeStart({ id: 'b', op_name: 'weave:///acme/demo/call/0194' }));
  const b = await readCall(h, 'b');
  assert.deepEqual(b?.summary.weave, { status: 'running' });
  // the derived filter still falls back to the op name itself (docs/spec/calls.md §5.2)
  assert.deepEqual(
    await queryIds(h, expr({ $eq: [field('summary.weave.trace_name'), lit('weave:///acme/demo/call/0194')] })),
    ['b'],
  );
  await h.post('/call/start', makeStart({ id: 'c' }));
  await h.post('/call/end', makeEnd('c', { exception: '' }));
  assert.equal((await readCall(h, 'c'))?.summary.weave.status, 'error');
  assert.deepEqual(await queryIds(h, expr({ $eq: [field('summary.weave.status'), lit('error')] })), ['c']);
});

test('§2.5 usage counts: integral floats accepted, extra keys kept, non-integers refused', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'u' }));
  const usage = {
    'gpt-4o': { prompt_tokens: 10.0, completion_tokens: '5', cache_read_input_tokens: 2, requests: null },
  };
  const end = await h.post('/call/end', makeEnd('u', { summary: { usage } }));
  assert.equal(end.statusCode, 200, end.body);
  assert.deepEqual((await readCall(h, 'u'))?.summary.usage, {
    'gpt-4o': { prompt_tokens: 10, completion_tokens: 5, cache_read_input_tokens: 2, requests: null },
  });
  const bad = await h.post('/call/end', makeEnd('u', { summary: { usage: { m: { total_tokens: 'many' } } } }));
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(bad.json().detail[0].loc, ['body', 'end', 'summary', 'usage', 'm', 'total_tokens']);
});

test('§4.3 batch items may target several projects; a forbidden project rejects the whole batch', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/call/upsert_batch', {
    batch: [
      { req: makeStart({ id: 'p1' }) },
      { req: makeStart({ id: 'p1', project_id: 'acme/second' }) },
      { req: makeEnd('p1', { project_id: 'acme/second' }) },
    ],
  });
  assert.deepEqual(res.json(), { res: [{ id: 'p1', trace_id: 'p1' }, { id: 'p1', trace_id: 'p1' }, {}] });
  assert.equal((await readCall(h, 'p1'))?.ended_at, null);
  assert.equal((await readCall(h, 'p1', {}, 'acme/second'))?.ended_at, '2025-01-01T10:00:01Z');
  const forbidden = await h.post('/call/upsert_batch', {
    batch: [{ req: makeStart({ id: 'p2' }) }, { req: makeStart({ id: 'p3', project_id: 'other/x' }) }],
  });
  assert.equal(forbidden.statusCode, 403);
  assert.equal(await readCall(h, 'p2'), null);
  const malformed = await h.post('/call/upsert_batch', {
    batch: [{ req: makeStart({ id: 'p2' }) }, { req: makeStart({ id: 'p3', project_id: 'nope' }) }],
  });
  assert.equal(malformed.statusCode, 400);
  assert.equal(await readCall(h, 'p2'), null);
});

test('§5.2 numeric segments index arrays but name keys of objects', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'arr', inputs: { m: [{ content: 'first' }, { content: 'second' }] } }));
  await h.post('/call/start', makeStart({ id: 'obj', inputs: { m: { 0: { content: 'key zero' }, 1: 'one' } } }));
  await h.post('/call/start', makeStart({ id: 'dot', inputs: { 'a.b': { c: 'dotted' } } }));
  const eq = (path: string, value: string) => queryIds(h, expr({ $eq: [field(path), lit(value)] }));
  assert.deepEqual(await eq('inputs.m.0.content', 'first'), ['arr']);
  assert.deepEqual(await eq('inputs.m.1.content', 'second'), ['arr']);
  assert.deepEqual(await eq('inputs.m.0.content', 'key zero'), ['obj']);
  assert.deepEqual(await eq('inputs.m.1', 'one'), ['obj']);
  assert.deepEqual(await eq('inputs.m.5.content', ''), ['arr', 'dot', 'obj']);
  assert.deepEqual(await eq('inputs.a\\.b.c', 'dotted'), ['dot']);
  assert.deepEqual(await eq('inputs.m', '[{"content":"first"},{"content":"second"}]'), ['arr']);
  await h.post('/call/start', makeStart({ id: 'q"k', inputs: { 'we"ird\\key': 'v' } }));
  assert.deepEqual(await eq('inputs.we"ird\\key', 'v'), ['q"k']);
});

test('§6.1 validation items carry the offending input; huge limits are clamped, never a 500', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'x' }));
  const extra = await h.post('/call/start', { ...makeStart(), foo: 'bar' });
  assert.deepEqual(extra.json().detail, [
    { loc: ['body', 'foo'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'bar' },
  ]);
  const wrong = await h.post('/call/read', { project_id: PROJECT, id: 5 });
  assert.deepEqual(wrong.json().detail, [
    { loc: ['body', 'id'], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
  ]);
  const missing = await h.post('/call/read', { project_id: PROJECT });
  assert.deepEqual(missing.json().detail, [
    { loc: ['body', 'id'], msg: 'Field required', type: 'missing', input: { project_id: PROJECT } },
  ]);
  for (const body of [
    { limit: 1e20 },
    { offset: 1e20 },
    { limit: '99999999999999999999' },
    { limit: 2 ** 53, offset: 0 },
  ]) {
    const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...body });
    assert.equal(res.statusCode, 200, JSON.stringify(body));
  }
  assert.deepEqual(await queryIds(h, { limit: 1e20 }), ['x']);
  assert.deepEqual(await queryIds(h, { offset: 1e20 }), []);
  const stats = await h.post('/calls/query_stats', { project_id: PROJECT, limit: 1e20 });
  assert.deepEqual(stats.json(), { count: 1, total_storage_size_bytes: null, has_more: false });
});

test('a __proto__ key inside free-form inputs is stored as data, not refused', async (t) => {
  const h = await buildTestApp(t);
  const body = `{"start":{"project_id":"acme/demo","id":"p1","op_name":"o","started_at":"2025-01-01T10:00:00Z","attributes":{},"inputs":{"__proto__":{"x":1},"constructor":{"prototype":2}}}}`;
  const res = await h.app.inject({
    method: 'POST',
    url: '/call/start',
    headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
    payload: body,
  });
  assert.equal(res.statusCode, 200);
  const call = (await h.post('/call/read', { project_id: 'acme/demo', id: 'p1' })).json().call;
  assert.equal(JSON.stringify(call.inputs), '{"__proto__":{"x":1},"constructor":{"prototype":2}}');
});
