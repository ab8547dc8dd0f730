import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { ok, sendAgents, sharedApp, type VSpan } from './agents-fixture.js';
import { attr } from './otel-fixture.js';

/** docs/spec/agents.md §14 checklist items 38–42 and 46: time-bucketed span stats. */

const app = sharedApp();
let h: TestApp;
beforeEach(() => {
  h = app();
});

let n = 0;
const project = (): string => `acme/stats-${++n}`;
const HOUR = 3_600_000;
const tok = { alias: 'tok', value_type: 'number', value: { key: 'input_tokens' } };
const range = { start: '2026-01-01T00:00:00Z', end: '2026-01-01T03:00:00Z', granularity: 3600 };

const span = (i: number, startMs: number, attributes = [attr('gen_ai.usage.input_tokens', 10)]): VSpan => ({
  spanId: (0x1000 + i).toString(16).padStart(16, '0'),
  name: 's',
  startMs,
  endMs: startMs + 50,
  attributes,
  traceId: (0x1000 + i).toString(16).padStart(32, '0'),
});

test('38: sums per hour bucket, empty buckets 0; columns and response fields', async () => {
  const p = project();
  await sendAgents(h, [span(1, HOUR + 10), span(2, HOUR + 20)], p);
  const res = await ok(h, '/agents/spans/stats', { project_id: p, ...range, metrics: [tok] });
  assert.deepEqual(
    res.rows.map((r: any) => [r.timestamp, r.sum_tok]),
    [
      ['2026-01-01T00:00:00Z', 0],
      ['2026-01-01T01:00:00Z', 20],
      ['2026-01-01T02:00:00Z', 0],
    ],
  );
  assert.deepEqual(res.columns, [
    { name: 'timestamp', role: 'time', value_type: 'datetime' },
    { name: 'sum_tok', role: 'metric', value_type: 'number', metric: 'tok', aggregation: 'sum' },
  ]);
  assert.deepEqual([res.granularity, res.bucket_type], [3600, 'time']);
});

test('39: avg, min and percentiles name their columns and are null in empty buckets', async () => {
  const p = project();
  await sendAgents(h, [span(1, HOUR + 10)], p);
  const metric = { ...tok, aggregations: ['avg', 'min'], percentiles: [95, 99.9] };
  const res = await ok(h, '/agents/spans/stats', { project_id: p, ...range, metrics: [metric] });
  assert.deepEqual(
    res.columns.map((c: any) => c.name),
    ['timestamp', 'avg_tok', 'min_tok', 'p95_tok', 'p99_9_tok'],
  );
  assert.deepEqual(res.rows[0], {
    timestamp: '2026-01-01T00:00:00Z',
    avg_tok: null,
    min_tok: null,
    p95_tok: null,
    p99_9_tok: null,
  });
  assert.equal(res.rows[1].p95_tok, 10);
});

test('40: type and range rules are 422', async () => {
  const p = project();
  const bad = async (body: Record<string, unknown>) =>
    (await h.post('/agents/spans/stats', { project_id: p, ...range, ...body })).statusCode;
  const derived = (key: string, value_type: string, extra = {}) => ({
    metrics: [{ alias: 'x', value_type, value: { source: 'derived', key }, ...extra }],
  });
  assert.equal(await bad(derived('is_error', 'boolean', { aggregations: ['sum'] })), 422);
  assert.equal(await bad(derived('duration_ms', 'boolean')), 422);
  assert.equal(
    await bad({ metrics: [{ alias: 's', value_type: 'string', value: { key: 'agent_name' }, percentiles: [50] }] }),
    422,
  );
  assert.equal(await bad({ metrics: [] }), 422);
  assert.equal(await bad({ metrics: [tok], end: '2025-12-31T00:00:00Z' }), 422);
});

test('41: grouped stats keep the top groups, one row per bucket and group', async () => {
  const p = project();
  const agent = (name: string) => [attr('gen_ai.agent.name', name), attr('gen_ai.usage.input_tokens', 1)];
  await sendAgents(
    h,
    [span(1, 10, agent('A')), span(2, 20, agent('A')), span(3, 30, agent('A')), span(4, 40, agent('B'))],
    p,
  );
  const res = await ok(h, '/agents/spans/stats', {
    project_id: p,
    ...range,
    metrics: [tok],
    group_by: [{ key: 'agent_name' }],
    group_limit: 1,
  });
  assert.deepEqual(
    res.rows.map((r: any) => [r.timestamp, r.agent_name, r.sum_tok]),
    [
      ['2026-01-01T00:00:00Z', 'A', 3],
      ['2026-01-01T01:00:00Z', 'A', 0],
      ['2026-01-01T02:00:00Z', 'A', 0],
    ],
  );
});

test('42: a 40-day range is refused only when grouped', async () => {
  const p = project();
  const long = { start: '2026-01-01T00:00:00Z', end: '2026-02-10T00:00:00Z', metrics: [tok] };
  assert.equal(
    (await h.post('/agents/spans/stats', { project_id: p, ...long, group_by: [{ key: 'agent_name' }] })).statusCode,
    422,
  );
  assert.equal((await h.post('/agents/spans/stats', { project_id: p, ...long })).statusCode, 200);
});

test('46: default aggregation is count for strings, sum for numbers', async () => {
  const p = project();
  const res = await ok(h, '/agents/spans/stats', {
    project_id: p,
    ...range,
    metrics: [tok, { alias: 'agent', value_type: 'string', value: { key: 'agent_name' } }],
  });
  assert.deepEqual(
    res.columns.map((c: any) => c.name),
    ['timestamp', 'sum_tok', 'count_agent'],
  );
});

test('43: numeric buckets over span durations', async () => {
  const p = project();
  const durations = [50, 150, 250, 250];
  await sendAgents(
    h,
    durations.map((d, i) => ({ ...span(i + 1, 10 + i), endMs: 10 + i + d })),
    p,
  );
  const res = await ok(h, '/agents/spans/stats', {
    project_id: p,
    ...range,
    metrics: [],
    bucket_by: { type: 'number', value: { source: 'derived', key: 'duration_ms' }, bins: 3, min: 0, max: 300 },
  });
  assert.deepEqual(
    res.rows.map((r: any) => [r.bucket_index, r.bucket_min, r.bucket_max, r.count]),
    [
      [0, 0, 100, 1],
      [1, 100, 200, 1],
      [2, 200, 300, 2],
    ],
  );
  assert.deepEqual([res.bucket_type, res.granularity], ['number', null]);
});

test('44: numeric buckets of a per-conversation count', async () => {
  const p = project();
  const conv = (id: string) => [attr('gen_ai.conversation.id', id)];
  await sendAgents(
    h,
    [
      span(1, 10, conv('a')),
      span(2, 20, conv('b')),
      span(3, 30, conv('c')),
      span(4, 40, conv('c')),
      span(5, 50, conv('c')),
    ],
    p,
  );
  const res = await ok(h, '/agents/spans/stats', {
    project_id: p,
    ...range,
    bucket_by: {
      type: 'number',
      group_by: [{ key: 'conversation_id' }],
      measure: { alias: 'n', aggregation: 'count' },
      bins: 2,
    },
  });
  assert.deepEqual(
    res.rows.map((r: any) => r.count),
    [2, 1],
  );
});
