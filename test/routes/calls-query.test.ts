import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAjv } from '../../src/schemas/ajv.js';
import { CallSchema } from '../../src/schemas/calls.js';
import { parseJsonl, PROJECT } from '../helpers/app.js';
import { expr, field, fixtureApp, lit, queryIds, streamQuery } from './calls-fixture.js';

/** docs/spec/calls.md §7 checklist items 16–28 and 33 (stream_query over the §5.7 fixture). */

test('checklist 16: stream_query {} lists calls by started_at ascending', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, {}), ['c-0001', 'c-0002', 'c-0003', 'c-0004']);
});

test('checklist 17: JSON Lines, application/jsonl without Accept, empty body when nothing matches', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/stream_query', { project_id: PROJECT });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/jsonl/);
  assert.ok(res.body.endsWith('\n'));
  const lines = res.body.split('\n');
  assert.equal(lines.pop(), '');
  assert.equal(lines.length, 4);
  const validate = createAjv().compile({
    ...CallSchema,
    additionalProperties: false,
    required: Object.keys(CallSchema.properties),
  });
  for (const line of lines) {
    const call = JSON.parse(line);
    assert.ok(validate(call), JSON.stringify(validate.errors));
    assert.equal(call.project_id, PROJECT);
    assert.equal(call.deleted_at, null);
  }
  const none = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { call_ids: ['nope'] } });
  assert.equal(none.statusCode, 200);
  assert.equal(none.body, '');
  const withAccept = await h.app.inject({
    method: 'POST',
    url: '/calls/stream_query',
    payload: { project_id: PROJECT },
    headers: {
      authorization: `Basic ${Buffer.from(`api:${h.aliceKey}`).toString('base64')}`,
      accept: 'application/json',
    },
  });
  assert.match(String(withAccept.headers['content-type']), /^application\/jsonl/);
  assert.equal(parseJsonl(withAccept.body).length, 4);
});

test('checklist 18: filter op_names ["chat"] → c-0001, c-0003', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, { filter: { op_names: ['chat'] } }), ['c-0001', 'c-0003']);
});

test('checklist 19: filter trace_roots_only → c-0001, c-0003, c-0004', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, { filter: { trace_roots_only: true } }), ['c-0001', 'c-0003', 'c-0004']);
});

test('checklist 20: inputs.n > 5 → c-0003 only', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, expr({ $gt: [field('inputs.n'), lit(5)] })), ['c-0003']);
});

test('checklist 21: $contains case-insensitive "hello" → c-0001; case-sensitive → none', async (t) => {
  const h = await fixtureApp(t);
  const contains = (ci: boolean) =>
    expr({ $contains: { input: field('inputs.prompt'), substr: lit('hello'), case_insensitive: ci } });
  assert.deepEqual(await queryIds(h, contains(true)), ['c-0001']);
  assert.deepEqual(await queryIds(h, contains(false)), []);
});

test('checklist 22: summary.weave.status error → c-0003, running → c-0004', async (t) => {
  const h = await fixtureApp(t);
  const status = (s: string) => expr({ $eq: [field('summary.weave.status'), lit(s)] });
  assert.deepEqual(await queryIds(h, status('error')), ['c-0003']);
  assert.deepEqual(await queryIds(h, status('running')), ['c-0004']);
  assert.deepEqual(await queryIds(h, status('success')), ['c-0001', 'c-0002']);
});

test('checklist 23: summary.weave.latency_ms > 1000 → c-0001 only', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, expr({ $gt: [field('summary.weave.latency_ms'), lit(1000)] })), ['c-0001']);
  assert.deepEqual(await queryIds(h, expr({ $gte: [field('summary.weave.latency_ms'), lit(1000)] })), [
    'c-0001',
    'c-0003',
  ]);
});

test('checklist 24: $in op_name [embed, retrieve] → c-0002, c-0004', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, expr({ $in: [field('op_name'), [lit('embed'), lit('retrieve')]] })), [
    'c-0002',
    'c-0004',
  ]);
});

test('checklist 25: started_at >= ISO string or Unix seconds → c-0003, c-0004', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, expr({ $gte: [field('started_at'), lit('2025-01-01T10:05:00Z')] })), [
    'c-0003',
    'c-0004',
  ]);
  assert.deepEqual(await queryIds(h, expr({ $gte: [field('started_at'), lit(1735725900)] })), ['c-0003', 'c-0004']);
});

test('checklist 26: sort inputs.n asc → c-0001, c-0003, then missing c-0004, c-0002', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, { sort_by: [{ field: 'inputs.n', direction: 'asc' }] }), [
    'c-0001',
    'c-0003',
    'c-0004',
    'c-0002',
  ]);
});

test('checklist 27: limit 2 offset 1 → c-0002, c-0003', async (t) => {
  const h = await fixtureApp(t);
  assert.deepEqual(await queryIds(h, { limit: 2, offset: 1 }), ['c-0002', 'c-0003']);
});

test('checklist 28: columns ["id"] keeps the always-selected fields and blanks the rest', async (t) => {
  const h = await fixtureApp(t);
  const calls = await streamQuery(h, { columns: ['id'] });
  assert.equal(calls.length, 4);
  const first = calls[0]!;
  assert.equal(first.id, 'c-0001');
  assert.equal(first.trace_id, 'c-0001');
  assert.equal(first.project_id, PROJECT);
  assert.equal(first.op_name, 'chat');
  assert.equal(first.started_at, '2025-01-01T10:00:00Z');
  assert.equal(calls[1]!.trace_id, 'c-0001');
  for (const call of calls) {
    assert.deepEqual(call.inputs, {});
    assert.deepEqual(call.attributes, {});
    assert.equal(call.output, null);
    assert.equal(call.parent_id, null);
    assert.equal(call.ended_at, null);
    assert.equal((call.summary as { weave: { status: string } }).weave.status, 'running');
  }
});

test('checklist 33: storage sizes are positive; the root total sums its trace; non-roots have null total', async (t) => {
  const h = await fixtureApp(t);
  const calls = await streamQuery(h, { include_storage_size: true, include_total_storage_size: true });
  const byId = new Map(calls.map((c) => [c.id as string, c]));
  for (const call of calls) {
    assert.ok(Number.isInteger(call.storage_size_bytes), `${String(call.id)} size is an integer`);
    assert.ok((call.storage_size_bytes as number) > 0);
  }
  const size = (id: string) => byId.get(id)!.storage_size_bytes as number;
  assert.equal(byId.get('c-0001')!.total_storage_size_bytes, size('c-0001') + size('c-0002'));
  assert.equal(byId.get('c-0002')!.total_storage_size_bytes, null);
  assert.equal(byId.get('c-0003')!.total_storage_size_bytes, size('c-0003'));
  // a running call counts only attributes + inputs: '{}' + '{"text":"x"}'
  assert.equal(size('c-0004'), 2 + JSON.stringify({ text: 'x' }).length);
  const plain = await streamQuery(h, { filter: { call_ids: ['c-0001'] } });
  assert.equal(plain[0]!.storage_size_bytes, null);
  assert.equal(plain[0]!.total_storage_size_bytes, null);
  // /call/read honours the same flags
  const read = (
    await h.post('/call/read', {
      project_id: PROJECT,
      id: 'c-0001',
      include_storage_size: true,
      include_total_storage_size: true,
    })
  ).json().call;
  assert.equal(read.storage_size_bytes, size('c-0001'));
  assert.equal(read.total_storage_size_bytes, size('c-0001') + size('c-0002'));
});

test('§5.7 worked examples 1–15 return the listed ids', async (t) => {
  const h = await fixtureApp(t);
  const cases: Array<[number, Record<string, unknown>, string[]]> = [
    [1, {}, ['c-0001', 'c-0002', 'c-0003', 'c-0004']],
    [2, expr({ $eq: [field('op_name'), lit('chat')] }), ['c-0001', 'c-0003']],
    [3, expr({ $gt: [field('inputs.n'), lit(5)] }), ['c-0003']],
    [
      4,
      expr({ $contains: { input: field('inputs.prompt'), substr: lit('hello'), case_insensitive: true } }),
      ['c-0001'],
    ],
    [5, expr({ $eq: [field('summary.weave.status'), lit('running')] }), ['c-0004']],
    [6, expr({ $not: [{ $eq: [field('exception'), lit(null)] }] }), ['c-0003']],
    [7, expr({ $gt: [field('summary.weave.latency_ms'), lit(1000)] }), ['c-0001']],
    [8, { sort_by: [{ field: 'inputs.n', direction: 'desc' }] }, ['c-0003', 'c-0001', 'c-0004', 'c-0002']],
    [
      9,
      { filter: { trace_roots_only: true }, sort_by: [{ field: 'started_at', direction: 'desc' }] },
      ['c-0004', 'c-0003', 'c-0001'],
    ],
    [10, expr({ $in: [field('op_name'), [lit('embed'), lit('retrieve')]] }), ['c-0002', 'c-0004']],
    [11, expr({ $gte: [field('started_at'), lit('2025-01-01T10:05:00Z')] }), ['c-0003', 'c-0004']],
    [12, expr({ $eq: [field('summary.weave.trace_name'), lit('Second chat')] }), ['c-0003']],
    [13, { filter: { parent_ids: ['c-0001'] } }, ['c-0002']],
    [14, { limit: 2, offset: 1 }, ['c-0002', 'c-0003']],
    [
      15,
      expr({
        $and: [
          { $eq: [field('op_name'), lit('chat')] },
          { $lt: [{ $convert: { input: field('inputs.n'), to: 'int' } }, lit(10)] },
        ],
      }),
      ['c-0001'],
    ],
  ];
  for (const [n, body, ids] of cases) assert.deepEqual(await queryIds(h, body), ids, `example ${n}`);
});

test('§5.7 query_stats examples and the columns ["id","summary"] example', async (t) => {
  const h = await fixtureApp(t);
  const stats = await h.post('/calls/query_stats', { project_id: PROJECT, filter: { op_names: ['chat'] } });
  assert.deepEqual(stats.json(), { count: 2, total_storage_size_bytes: null, has_more: null });
  const limited = await h.post('/calls/query_stats', { project_id: PROJECT, filter: { op_names: ['chat'] }, limit: 1 });
  assert.deepEqual(limited.json(), { count: 1, total_storage_size_bytes: null, has_more: true });
  const [line, ...rest] = await streamQuery(h, { columns: ['id', 'summary'], filter: { call_ids: ['c-0001'] } });
  assert.ok(line !== undefined);
  assert.equal(rest.length, 0);
  assert.deepEqual(line.inputs, {});
  assert.deepEqual(line.attributes, {});
  assert.equal(line.output, null);
  assert.deepEqual((line.summary as { weave: unknown }).weave, {
    status: 'success',
    latency_ms: 2500,
    trace_name: 'chat',
  });
});

test('/calls/query answers {"calls": [...]} with the same semantics', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/query', { project_id: PROJECT, filter: { op_names: ['chat'] } });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(
    res.json().calls.map((c: { id: string }) => c.id),
    ['c-0001', 'c-0003'],
  );
  const empty = await h.post('/calls/query', { project_id: PROJECT, filter: { op_names: ['nope'] } });
  assert.deepEqual(empty.json(), { calls: [] });
});
