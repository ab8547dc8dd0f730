import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { assertValidationBody, expr, field, fixtureApp, lit, queryIds, readCall } from './calls-fixture.js';

/** docs/spec/calls.md §7 checklist items 29–32 and 40, plus §6 error conditions and §6.3 lax coercion. */

test('checklist 29: an unknown $getField → 422 with a reason body', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    ...expr({ $eq: [field('bogus_field'), lit('x')] }),
  });
  assert.equal(res.statusCode, 422);
  assert.equal(typeof res.json().reason, 'string');
  assert.equal(res.json().detail, undefined);
  assert.equal(res.json().reason, 'Field bogus_field is not allowed');
  for (const path of ['summary.weave.nope', 'storage_size_bytes', 'total_storage_size_bytes', 'feedback.nope']) {
    const r = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr({ $eq: [field(path), lit('x')] }) });
    assert.equal(r.statusCode, 422, path);
    assert.equal(typeof r.json().reason, 'string', path);
  }
  const sort = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    sort_by: [{ field: 'bogus_field', direction: 'asc' }],
  });
  assert.equal(sort.statusCode, 422);
  assert.equal(typeof sort.json().reason, 'string');
});

test('checklist 30: {"$and": []} → 400', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr({ $and: [] }) });
  assert.equal(res.statusCode, 400);
  assert.match(res.json().reason, /Empty AND/);
  const or = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr({ $or: [] }) });
  assert.equal(or.statusCode, 400);
  assert.equal(typeof or.json().reason, 'string');
});

test('checklist 31: $eq with one operand → 422 detail', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr({ $eq: [field('op_name')] }) });
  assert.equal(res.statusCode, 422);
  assertValidationBody(res.json());
  for (const bad of [
    { $not: [] },
    { $not: [{ $eq: [field('id'), lit('a')] }, { $eq: [field('id'), lit('b')] }] },
    { $gt: [field('id'), lit(1), lit(2)] },
    { $eq: [{ $convert: { input: field('inputs.n'), to: 'float' } }, lit(1)] },
    { $bogus: [] },
    { $eq: [field('id'), lit('a')], $gt: [field('id'), lit('a')] },
  ]) {
    const r = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr(bad) });
    assert.equal(r.statusCode, 422, JSON.stringify(bad));
    assertValidationBody(r.json());
  }
  const extra = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    query: { $expr: { $eq: [field('id'), lit('a')] }, foo: 1 },
  });
  assert.equal(extra.statusCode, 422);
  assertValidationBody(extra.json());
});

test('checklist 32: query_stats count / limit / has_more; limit 0 → 400', async (t) => {
  const h = await fixtureApp(t);
  const stats = (body: Record<string, unknown>) =>
    h.post('/calls/query_stats', { project_id: PROJECT, filter: { op_names: ['chat'] }, ...body });
  assert.equal((await stats({})).json().count, 2);
  assert.deepEqual((await stats({ limit: 1 })).json(), { count: 1, total_storage_size_bytes: null, has_more: true });
  assert.deepEqual((await stats({ limit: 2 })).json(), { count: 2, total_storage_size_bytes: null, has_more: false });
  const zero = await stats({ limit: 0 });
  assert.equal(zero.statusCode, 400);
  assert.equal(zero.json().reason, 'Limit must be a positive integer');
  assert.equal((await stats({ limit: -3 })).statusCode, 400);
});

test('checklist 40: every 422 validation response has a non-empty detail of {loc, msg, type}', async (t) => {
  const h = await buildTestApp(t);
  const { start: noStart } = makeStart({ id: 'v' });
  delete noStart.started_at;
  const requests: Array<[string, unknown]> = [
    ['/call/start', { ...makeStart(), foo: 1 }],
    ['/call/start', { start: noStart }],
    ['/call/start', makeStart({ started_at: 'not a date' })],
    ['/call/start', makeStart({ op_name: 5 })],
    ['/call/start', makeStart({ inputs: [] })],
    ['/call/start', {}],
    ['/call/end', { end: { project_id: PROJECT, id: 'x', summary: {} } }],
    ['/call/end', makeEnd('x', { summary: { status_counts: { bogus: 1 } } })],
    ['/call/end', makeEnd('x', { summary: { usage: { m: { prompt_tokens: 1.5 } } } })],
    ['/call/upsert_batch', { batch: [{ mode: 'start', req: { start: { project_id: PROJECT } } }] }],
    ['/call/upsert_batch', { batch: [], extra: true }],
    ['/call/read', { project_id: PROJECT }],
    ['/call/read', { project_id: PROJECT, id: 'x', nope: 1 }],
    ['/call/update', { project_id: PROJECT, call_id: 'x', display_name: 'y', other: 1 }],
    ['/calls/delete', { project_id: PROJECT }],
    ['/calls/delete', { project_id: PROJECT, call_ids: 'x' }],
    ['/calls/stream_query', { project_id: PROJECT, sort_by: [{ field: 'id', direction: 'up' }] }],
    ['/calls/stream_query', { project_id: PROJECT, filter: { bogus: [] } }],
    ['/calls/stream_query', { project_id: PROJECT, limit: 'ten' }],
    ['/calls/stream_query', { project_id: PROJECT, query: { $expr: { $eq: [field('id')] } } }],
    ['/calls/query_stats', { project_id: PROJECT, columns: ['id'] }],
  ];
  for (const [url, body] of requests) {
    const res = await h.post(url, body);
    assert.equal(res.statusCode, 422, `${url} ${JSON.stringify(body)} → ${res.body}`);
    assertValidationBody(res.json());
  }
  const notJson = await h.app.inject({
    method: 'POST',
    url: '/call/start',
    payload: '{"start": ',
    headers: {
      authorization: `Basic ${Buffer.from(`api:${h.aliceKey}`).toString('base64')}`,
      'content-type': 'application/json',
    },
  });
  assert.equal(notJson.statusCode, 422);
  assert.equal(assertValidationBody(notJson.json())[0]!.type, 'json_invalid');
});

test('batch item failures name their item; a bad mode → 400; nothing is applied', async (t) => {
  const h = await buildTestApp(t);
  const { start } = makeStart({ id: 'b2' });
  delete start.op_name;
  const res = await h.post('/call/upsert_batch', {
    batch: [
      { mode: 'start', req: makeStart({ id: 'b1' }) },
      { mode: 'start', req: { start } },
    ],
  });
  assert.equal(res.statusCode, 422);
  const detail = assertValidationBody(res.json());
  assert.deepEqual(detail[0]!.loc, ['body', 'batch', '1', 'req', 'start', 'op_name']);
  assert.equal(detail[0]!.type, 'missing');
  assert.equal(await readCall(h, 'b1'), null);
  const mode = await h.post('/call/upsert_batch', {
    batch: [
      { mode: 'start', req: makeStart({ id: 'b1' }) },
      { mode: 'finish', req: makeEnd('b1') },
    ],
  });
  assert.equal(mode.statusCode, 400);
  assert.equal(mode.json().reason, 'Invalid mode');
  assert.equal(await readCall(h, 'b1'), null);
  const mismatch = await h.post('/call/upsert_batch', { batch: [{ mode: 'end', req: makeStart({ id: 'b1' }) }] });
  assert.equal(mismatch.statusCode, 400);
  const defaults = await h.post('/call/upsert_batch', {
    batch: [{ req: makeStart({ id: 'b3' }) }, { req: makeEnd('b3'), extra: 1 }],
  });
  assert.deepEqual(defaults.json(), { res: [{ id: 'b3', trace_id: 'b3' }, {}] });
  assert.deepEqual((await h.post('/call/upsert_batch', { batch: [] })).json(), { res: [] });
});

test('§6.3 lax scalars: limit "10", include_storage_size "true"; op_name 5 → 422', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, { limit: '2' }), ['c-0001', 'c-0002']);
  assert.deepEqual(await queryIds(h, { limit: '10', offset: '3' }), ['c-0004']);
  assert.deepEqual(await queryIds(h, { limit: 0 }), ['c-0001', 'c-0002', 'c-0003', 'c-0004']);
  const sized = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    include_storage_size: 'true',
    filter: { call_ids: ['c-0001'], trace_roots_only: 1 },
  });
  assert.equal(sized.statusCode, 200);
  assert.ok(JSON.parse(sized.body).storage_size_bytes > 0);
  const off = await h.post('/calls/stream_query', { project_id: PROJECT, include_storage_size: 'false', limit: 1 });
  assert.equal(JSON.parse(off.body).storage_size_bytes, null);
  const read = await readCall(h, 'c-0001', { include_storage_size: 1 });
  assert.ok(read?.storage_size_bytes > 0);
  const stats = await h.post('/calls/query_stats', { project_id: PROJECT, limit: '1' });
  assert.deepEqual(stats.json(), { count: 1, total_storage_size_bytes: null, has_more: true });
  const opName = await h.post('/call/start', makeStart({ op_name: 5 }));
  assert.equal(opName.statusCode, 422);
  const detail = assertValidationBody(opName.json());
  assert.ok(
    detail.some((d) => d.type === 'string_type' && JSON.stringify(d.loc) === '["body","start","op_name"]'),
    opName.body,
  );
  const step = await h.post('/call/start', makeStart({ id: 's5', wb_run_step: '7' }));
  assert.equal(step.statusCode, 200);
  assert.equal((await readCall(h, 's5'))?.wb_run_step, 7);
  for (const bad of [{ limit: '1.5' }, { limit: 1.5 }, { include_storage_size: 'yes' }, { include_storage_size: 2 }]) {
    const r = await h.post('/calls/stream_query', { project_id: PROJECT, ...bad });
    assert.equal(r.statusCode, 422, JSON.stringify(bad));
  }
  assert.equal((await h.post('/calls/stream_query', { project_id: PROJECT, limit: -1 })).statusCode, 400);
  assert.equal((await h.post('/calls/stream_query', { project_id: PROJECT, offset: -1 })).statusCode, 400);
});

test('filter lists over 1000 entries → 400 naming the parameter', async (t) => {
  const h = await fixtureApp(t);
  const long = Array.from({ length: 1001 }, (_, i) => `v${i}`);
  for (const name of [
    'op_names',
    'input_refs',
    'output_refs',
    'parent_ids',
    'trace_ids',
    'call_ids',
    'thread_ids',
    'turn_ids',
  ]) {
    const res = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { [name]: long } });
    assert.equal(res.statusCode, 400, name);
    assert.match(
      res.json().reason,
      new RegExp(`Parameter: '${name}' request length is greater than max length \\(1000\\)`),
    );
    const stats = await h.post('/calls/query_stats', { project_id: PROJECT, filter: { [name]: long } });
    assert.equal(stats.statusCode, 400, name);
  }
  const ok = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    filter: { call_ids: [...long.slice(0, 999), 'c-0002'] },
  });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.body.split('\n').filter(Boolean).length, 1);
});

test('a malformed weave:/// string in inputs or output → 400; well-formed refs pass', async (t) => {
  const h = await buildTestApp(t);
  for (const bad of [
    'weave:///',
    'weave:///acme',
    'weave:///acme/demo',
    'weave:////demo/op/x',
    'weave:///acme//op/x',
  ]) {
    const res = await h.post('/call/start', makeStart({ id: 'm1', inputs: { nested: [{ ref: bad }] } }));
    assert.equal(res.statusCode, 400, bad);
    assert.equal(typeof res.json().reason, 'string');
  }
  assert.equal(await readCall(h, 'm1'), null);
  const good = await h.post(
    '/call/start',
    makeStart({ id: 'm1', inputs: { model: 'weave:///acme/demo/object/Model:abc', text: 'see weave:///' } }),
  );
  assert.equal(good.statusCode, 200);
  const end = await h.post('/call/end', makeEnd('m1', { output: { r: 'weave:///acme' } }));
  assert.equal(end.statusCode, 400);
  const batch = await h.post('/call/upsert_batch', {
    batch: [{ req: makeStart({ id: 'm2' }) }, { req: makeEnd('m2', { output: 'weave:///x' }) }],
  });
  assert.equal(batch.statusCode, 400);
  assert.equal(await readCall(h, 'm2'), null);
});

test('malformed project_id → 400 on every endpoint; another entity → 403', async (t) => {
  const h = await buildTestApp(t);
  for (const project of ['acme', 'acme/demo/x', '/demo', 'acme/', '']) {
    const bodies: Array<[string, unknown]> = [
      ['/call/start', makeStart({ project_id: project })],
      ['/call/end', makeEnd('x', { project_id: project })],
      ['/call/read', { project_id: project, id: 'x' }],
      ['/call/update', { project_id: project, call_id: 'x', display_name: 'y' }],
      ['/calls/delete', { project_id: project, call_ids: ['x'] }],
      ['/calls/stream_query', { project_id: project }],
      ['/calls/query_stats', { project_id: project }],
    ];
    for (const [url, body] of bodies) {
      const res = await h.post(url, body);
      assert.equal(res.statusCode, 400, `${url} ${project}`);
      assert.equal(typeof res.json().reason, 'string');
    }
  }
  const other = await h.post('/calls/stream_query', { project_id: 'other/p' });
  assert.equal(other.statusCode, 403);
  assert.equal((await h.post('/call/start', makeStart(), h.bobKey)).statusCode, 403);
  assert.equal((await h.post('/call/start', makeStart(), null)).statusCode, 401);
});

test('wrong method → 405; unparseable datetime literal → 400', async (t) => {
  const h = await fixtureApp(t);
  const get = await h.get('/calls/stream_query');
  assert.equal(get.statusCode, 405);
  assert.deepEqual(get.json(), { detail: 'Method Not Allowed' });
  const res = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    ...expr({ $gt: [field('started_at'), lit('yesterday')] }),
  });
  assert.equal(res.statusCode, 400);
  const objLit = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    ...expr({ $eq: [field('inputs.n'), lit({ a: 1 })] }),
  });
  assert.equal(objLit.statusCode, 400);
  const root = await h.post('/calls/stream_query', { project_id: PROJECT, ...expr(lit(true)) });
  assert.equal(root.statusCode, 422);
});
