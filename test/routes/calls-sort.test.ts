import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { fixtureApp, queryIds, streamQuery } from './calls-fixture.js';

/** docs/spec/calls.md §5.5 sorting (dynamic fields, columns, derived fields, tie-breaker) and §5.6 projection. */

const by = (fieldPath: string, direction: 'asc' | 'desc') => ({ field: fieldPath, direction });

test('§5.5 dynamic fields: present first, numbers numerically, then text, ties by id desc', async (t) => {
  const h = await buildTestApp(t);
  const values: Array<[string, unknown]> = [
    ['s1', 2],
    ['s2', 10],
    ['s3', 'abc'],
    ['s4', 'b'],
    ['s5', null],
    ['s6', undefined],
    ['s7', '10'],
    ['s8', true],
    ['s9', 2.5],
  ];
  for (const [id, v] of values) await h.post('/call/start', makeStart({ id, inputs: v === undefined ? {} : { v } }));
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.v', 'asc')] }), [
    's1',
    's9',
    's7',
    's2',
    's3',
    's4',
    's8',
    's6',
    's5',
  ]);
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.v', 'desc')] }), [
    's7',
    's2',
    's9',
    's1',
    's8',
    's4',
    's3',
    's6',
    's5',
  ]);
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.v', 'asc')], limit: 3, offset: 2 }), ['s7', 's2', 's3']);
});

test('§5.5 escaped dots and array indices in sort paths', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'a', inputs: { 'gpt-3.5': 2, list: [5, 1] } }));
  await h.post('/call/start', makeStart({ id: 'b', inputs: { 'gpt-3.5': 1, list: [4, 9] } }));
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.gpt-3\\.5', 'asc')] }), ['b', 'a']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.list.1', 'desc')] }), ['b', 'a']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.list.0', 'desc')] }), ['a', 'b']);
});

test('§5.5 column and derived fields: natural order, nulls last in both directions, id desc tie-breaker', async (t) => {
  const h = await fixtureApp(t);
  const cases: Array<[unknown[], string[]]> = [
    [[by('display_name', 'asc')], ['c-0003', 'c-0004', 'c-0002', 'c-0001']],
    [[by('display_name', 'desc')], ['c-0003', 'c-0004', 'c-0002', 'c-0001']],
    [[by('op_name', 'asc')], ['c-0003', 'c-0001', 'c-0004', 'c-0002']],
    [[by('op_name', 'desc')], ['c-0002', 'c-0004', 'c-0003', 'c-0001']],
    [
      [by('op_name', 'asc'), by('started_at', 'desc')],
      ['c-0003', 'c-0001', 'c-0004', 'c-0002'],
    ],
    [
      [by('op_name', 'asc'), by('id', 'asc')],
      ['c-0001', 'c-0003', 'c-0004', 'c-0002'],
    ],
    [[by('ended_at', 'asc')], ['c-0002', 'c-0001', 'c-0003', 'c-0004']],
    [[by('ended_at', 'desc')], ['c-0003', 'c-0001', 'c-0002', 'c-0004']],
    [[by('started_at', 'desc')], ['c-0004', 'c-0003', 'c-0002', 'c-0001']],
    [[by('summary.weave.latency_ms', 'desc')], ['c-0001', 'c-0003', 'c-0002', 'c-0004']],
    [[by('summary.weave.latency_ms', 'asc')], ['c-0002', 'c-0003', 'c-0001', 'c-0004']],
    [[by('summary.weave.status', 'asc')], ['c-0003', 'c-0004', 'c-0002', 'c-0001']],
    [[by('summary.weave.trace_name', 'asc')], ['c-0003', 'c-0001', 'c-0004', 'c-0002']],
    [[by('inputs.prompt', 'asc')], ['c-0001', 'c-0003', 'c-0004', 'c-0002']],
    [[by('parent_id', 'asc')], ['c-0002', 'c-0004', 'c-0003', 'c-0001']],
    [[], ['c-0001', 'c-0002', 'c-0003', 'c-0004']],
  ];
  for (const [sortBy, ids] of cases)
    assert.deepEqual(await queryIds(h, { sort_by: sortBy }), ids, JSON.stringify(sortBy));
});

test('§5.5 the appended id follows a final started_at key, else it is id desc', async (t) => {
  const h = await buildTestApp(t);
  for (const id of ['t-b', 't-a', 't-c']) await h.post('/call/start', makeStart({ id }));
  assert.deepEqual(await queryIds(h, {}), ['t-a', 't-b', 't-c']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('started_at', 'desc')] }), ['t-c', 't-b', 't-a']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('started_at', 'asc')] }), ['t-a', 't-b', 't-c']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('op_name', 'asc')] }), ['t-c', 't-b', 't-a']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('inputs.x', 'asc')] }), ['t-c', 't-b', 't-a']);
  assert.deepEqual(await queryIds(h, { sort_by: [by('id', 'asc'), by('op_name', 'desc')] }), ['t-a', 't-b', 't-c']);
  assert.deepEqual(await queryIds(h, { sort_by: [] }), ['t-b', 't-a', 't-c']);
});

test('§5.5 sort_by is strict: a bad direction or an extra key → 422, an unknown field → 422 reason', async (t) => {
  const h = await buildTestApp(t);
  for (const sortBy of [
    [{ field: 'id', direction: 'up' }],
    [{ field: 'id', direction: 'asc', nulls: 'first' }],
    [{ direction: 'asc' }],
  ]) {
    const res = await h.post('/calls/stream_query', { project_id: PROJECT, sort_by: sortBy });
    assert.equal(res.statusCode, 422, JSON.stringify(sortBy));
    assert.ok(Array.isArray(res.json().detail));
  }
  const unknown = await h.post('/calls/stream_query', {
    project_id: PROJECT,
    sort_by: [by('summary.weave.costs', 'asc')],
  });
  assert.equal(unknown.statusCode, 422);
  assert.equal(typeof unknown.json().reason, 'string');
});

test('§5.6 columns: top-level fields by first segment, unknown names ignored, summary pulls status inputs', async (t) => {
  const h = await fixtureApp(t);
  const [first] = await streamQuery(h, { columns: ['inputs.prompt', 'bogus'], filter: { call_ids: ['c-0001'] } });
  assert.ok(first !== undefined);
  assert.deepEqual(first.inputs, { prompt: 'Hello World', n: 3 });
  assert.equal(first.output, null);
  assert.equal((first.summary as { weave: { status: string } }).weave.status, 'running');
  const [withSummary] = await streamQuery(h, { columns: ['summary'], filter: { call_ids: ['c-0003'] } });
  assert.ok(withSummary !== undefined);
  assert.deepEqual((withSummary.summary as { weave: unknown }).weave, {
    status: 'error',
    latency_ms: 1000,
    display_name: 'Second chat',
  });
  assert.equal(withSummary.display_name, 'Second chat');
  assert.equal(withSummary.exception, 'ValueError: boom');
  assert.equal(withSummary.ended_at, '2025-01-01T10:05:01Z');
  assert.deepEqual(withSummary.inputs, {});
  const [partial] = await streamQuery(h, {
    columns: ['parent_id', 'ended_at', 'output'],
    filter: { call_ids: ['c-0002'] },
  });
  assert.ok(partial !== undefined);
  assert.equal(partial.parent_id, 'c-0001');
  assert.deepEqual(partial.output, { id: 'c-0002' });
  assert.deepEqual((partial.summary as { weave: unknown }).weave, {
    status: 'success',
    latency_ms: 500,
    trace_name: 'retrieve',
  });
  const bare = await streamQuery(h, { columns: [] });
  assert.deepEqual(
    bare.map((c) => c.id),
    ['c-0001', 'c-0002', 'c-0003', 'c-0004'],
  );
  assert.equal(bare[1]!.trace_id, 'c-0001');
  assert.equal(bare[1]!.parent_id, null);
  assert.equal(bare[2]!.display_name, null);
});

test('§5.6 columns ["attributes"] keeps otel_span; feedback and usernames on request', async (t) => {
  const h = await buildTestApp(t);
  await h.post('/call/start', makeStart({ id: 'o1', attributes: { env: 'dev' }, otel_dump: { name: 'span' } }));
  await h.post('/call/end', makeEnd('o1'));
  const [call] = await streamQuery(h, { columns: ['attributes'] });
  assert.ok(call !== undefined);
  assert.deepEqual(call.attributes, { env: 'dev', otel_span: { name: 'span' } });
  const [all] = await streamQuery(h, { include_feedback: true, include_usernames: 'true' });
  assert.ok(all !== undefined);
  assert.deepEqual((all.summary as { weave: { feedback: unknown } }).weave.feedback, []);
  assert.equal(all.wb_username, 'alice');
  assert.deepEqual((all.attributes as Record<string, unknown>).otel_span, { name: 'span' });
  const [plain] = await streamQuery(h, {});
  assert.ok(plain !== undefined);
  assert.equal('feedback' in (plain.summary as { weave: object }).weave, false);
  assert.equal(plain.wb_username, null);
});

test('§5.2 summary.weave.total_tokens sorts and filters, and is not returned', async (t) => {
  const h = await buildTestApp(t);
  const usages: Array<[string, unknown]> = [
    ['k1', { m: { total_tokens: 30 } }],
    ['k2', { a: { prompt_tokens: 10, completion_tokens: 5 }, b: { input_tokens: 20, output_tokens: 1 } }],
    ['k3', undefined],
    ['k4', { m: { total_tokens: 0, prompt_tokens: 2 } }],
  ];
  for (const [id, usage] of usages) {
    await h.post('/call/start', makeStart({ id }));
    await h.post('/call/end', makeEnd(id, { summary: usage === undefined ? {} : { usage } }));
  }
  assert.deepEqual(await queryIds(h, { sort_by: [by('summary.weave.total_tokens', 'desc')] }), [
    'k2',
    'k1',
    'k4',
    'k3',
  ]);
  assert.deepEqual(await queryIds(h, { sort_by: [by('summary.weave.total_tokens', 'asc')] }), ['k4', 'k1', 'k2', 'k3']);
  const over = { $expr: { $gt: [{ $getField: 'summary.weave.total_tokens' }, { $literal: 20 }] } };
  assert.deepEqual(await queryIds(h, { query: over, sort_by: [by('id', 'asc')] }), ['k1', 'k2']);
  const [row] = await streamQuery(h, { filter: { call_ids: ['k1'] } });
  assert.equal('total_tokens' in (row as { summary: { weave: object } }).summary.weave, false);
});

test('§5.2 summary.weave.total_cost orders calls as the costs returned with include_costs, and is not returned', async (t) => {
  const h = await buildTestApp(t);
  const created = await h.post('/cost/create', {
    project_id: PROJECT,
    costs: {
      'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002, effective_date: '2020-01-01T00:00:00Z' },
    },
  });
  assert.equal(created.statusCode, 200, created.body);
  const usages: Array<[string, unknown]> = [
    ['q1', { 'my-llm': { prompt_tokens: 30, completion_tokens: 1 } }],
    ['q2', { 'my-llm': { prompt_tokens: 10, completion_tokens: 20 }, 'gpt-4o-mini': { prompt_tokens: 1000 } }],
    ['q3', { unpriced: { prompt_tokens: 5 } }],
    ['q4', undefined],
    ['q5', { 'my-llm': { input_tokens: 3, output_tokens: 4 } }],
  ];
  for (const [id, usage] of usages) {
    await h.post('/call/start', makeStart({ id }));
    await h.post('/call/end', makeEnd(id, { summary: usage === undefined ? {} : { usage } }));
  }
  // the UI's totalCost (web/src/lib/call.ts) of each returned call
  const shown = new Map<string, number | null>();
  for (const row of await streamQuery(h, { include_costs: true })) {
    const costs = (row as { summary: { weave: { costs?: Record<string, Record<string, number>> } } }).summary.weave
      .costs;
    const parts = ['prompt', 'completion', 'cache_read_input', 'cache_creation_input'];
    const total = costs
      ? Object.values(costs).reduce(
          (sum, c) => sum + parts.reduce((s, k) => s + (c[`${k}_tokens_total_cost`] ?? 0), 0),
          0,
        )
      : null;
    shown.set(row.id as string, total);
  }
  const order = (direction: 'asc' | 'desc'): string[] =>
    [...shown]
      .sort(([a], [b]) => (a < b ? 1 : -1))
      .sort(([, a], [, b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : direction === 'asc' ? a - b : b - a))
      .map(([id]) => id);
  for (const direction of ['asc', 'desc'] as const)
    assert.deepEqual(await queryIds(h, { sort_by: [by('summary.weave.total_cost', direction)] }), order(direction));
  const [row] = await streamQuery(h, { filter: { call_ids: ['q1'] }, include_costs: true });
  assert.equal('total_cost' in (row as { summary: { weave: object } }).summary.weave, false);
});
