import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** `/calls/stats` grouping, our extension (docs/spec/calls.md §4.9 "Grouping"). */

const RANGE = { start: '2025-01-01T10:00:00Z', end: '2025-01-01T10:10:00Z', granularity: 300 };

/** Five calls: chat ×3 (one failed, one running), embed ×2; usage on some, one with two models. */
async function seed(t: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  const h = await buildTestApp(t);
  const calls: Array<[string, string, string, Record<string, unknown> | null]> = [
    // id, op, started_at, end fields (null: still running)
    ['g-1', 'chat', '2025-01-01T10:00:00Z', { summary: { usage: { 'gpt-4o': { total_tokens: 10 } } } }],
    ['g-2', `weave:///${PROJECT}/op/chat:abc`, '2025-01-01T10:01:00Z', { exception: 'boom' }],
    ['g-3', 'chat', '2025-01-01T10:06:00Z', null],
    [
      'g-4',
      'embed',
      '2025-01-01T10:06:00Z',
      { summary: { usage: { 'gpt-4o': { total_tokens: 1 }, 'text-embed': { total_tokens: 5 } } } },
    ],
    ['g-5', 'embed', '2025-01-01T10:07:00Z', {}],
  ];
  for (const [id, op, startedAt, end] of calls) {
    const started = await h.post('/call/start', makeStart({ id, op_name: op, started_at: startedAt }));
    assert.equal(started.statusCode, 200, started.body);
    if (end === null) continue;
    const endedAt = new Date(Date.parse(startedAt) + 1000).toISOString();
    const ended = await h.post('/call/end', makeEnd(id, { ended_at: endedAt, ...end }));
    assert.equal(ended.statusCode, 200, ended.body);
  }
  return h;
}

async function stats(h: TestApp, body: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const res = await h.post('/calls/stats', { project_id: PROJECT, ...RANGE, ...body });
  return { status: res.statusCode, json: res.json() };
}

const pick = (rows: Record<string, unknown>[], keys: string[]) =>
  rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])));

test('group_by op: one row per bucket × op seen, op refs shortened to their name, gaps filled', async (t) => {
  const h = await seed(t);
  const { status, json } = await stats(h, { group_by: ['op'], call_metrics: [{ metric: 'call_count' }] });
  assert.equal(status, 200);
  assert.deepEqual(pick(json.call_buckets, ['timestamp', 'op', 'sum_call_count']), [
    { timestamp: '2025-01-01T10:00:00Z', op: 'chat', sum_call_count: 2 },
    { timestamp: '2025-01-01T10:00:00Z', op: 'embed', sum_call_count: 0 },
    { timestamp: '2025-01-01T10:05:00Z', op: 'chat', sum_call_count: 1 },
    { timestamp: '2025-01-01T10:05:00Z', op: 'embed', sum_call_count: 2 },
  ]);
});

test('two dimensions, op then status: error, running and success groups; errors counted per group', async (t) => {
  const h = await seed(t);
  const { json } = await stats(h, {
    group_by: ['op', 'status'],
    call_metrics: [{ metric: 'call_count' }, { metric: 'error_count' }],
  });
  const nonEmpty = json.call_buckets.filter((r: any) => r.sum_call_count > 0);
  assert.deepEqual(pick(nonEmpty, ['timestamp', 'op', 'status', 'sum_call_count', 'sum_error_count']), [
    { timestamp: '2025-01-01T10:00:00Z', op: 'chat', status: 'error', sum_call_count: 1, sum_error_count: 1 },
    { timestamp: '2025-01-01T10:00:00Z', op: 'chat', status: 'success', sum_call_count: 1, sum_error_count: 0 },
    { timestamp: '2025-01-01T10:05:00Z', op: 'chat', status: 'running', sum_call_count: 1, sum_error_count: 0 },
    { timestamp: '2025-01-01T10:05:00Z', op: 'embed', status: 'success', sum_call_count: 2, sum_error_count: 0 },
  ]);
  // 2 buckets × 4 groups seen (chat/error, chat/running, chat/success, embed/success)
  assert.equal(json.call_buckets.length, 8);
});

test('group_by model: calls count under each model they used, calls without usage under null', async (t) => {
  const h = await seed(t);
  const { json } = await stats(h, {
    group_by: ['model'],
    call_metrics: [{ metric: 'call_count' }],
    usage_metrics: [{ metric: 'total_tokens' }],
  });
  assert.deepEqual(pick(json.call_buckets, ['timestamp', 'model', 'sum_call_count']), [
    { timestamp: '2025-01-01T10:00:00Z', model: 'gpt-4o', sum_call_count: 1 },
    { timestamp: '2025-01-01T10:00:00Z', model: 'text-embed', sum_call_count: 0 },
    { timestamp: '2025-01-01T10:00:00Z', model: null, sum_call_count: 1 },
    { timestamp: '2025-01-01T10:05:00Z', model: 'gpt-4o', sum_call_count: 1 },
    { timestamp: '2025-01-01T10:05:00Z', model: 'text-embed', sum_call_count: 1 },
    { timestamp: '2025-01-01T10:05:00Z', model: null, sum_call_count: 2 },
  ]);
  assert.deepEqual(pick(json.usage_buckets, ['timestamp', 'model', 'sum_total_tokens']), [
    { timestamp: '2025-01-01T10:00:00Z', model: 'gpt-4o', sum_total_tokens: 10 },
    { timestamp: '2025-01-01T10:00:00Z', model: 'text-embed', sum_total_tokens: 0 },
    { timestamp: '2025-01-01T10:05:00Z', model: 'gpt-4o', sum_total_tokens: 1 },
    { timestamp: '2025-01-01T10:05:00Z', model: 'text-embed', sum_total_tokens: 5 },
  ]);
});

test('usage rows grouped by op carry the model and the op', async (t) => {
  const h = await seed(t);
  const { json } = await stats(h, { group_by: ['op'], usage_metrics: [{ metric: 'total_tokens' }] });
  assert.deepEqual(
    json.usage_buckets.filter((r: any) => r.sum_total_tokens > 0),
    [
      { timestamp: '2025-01-01T10:00:00Z', model: 'gpt-4o', op: 'chat', sum_total_tokens: 10, count: 1 },
      { timestamp: '2025-01-01T10:05:00Z', model: 'gpt-4o', op: 'embed', sum_total_tokens: 1, count: 1 },
      { timestamp: '2025-01-01T10:05:00Z', model: 'text-embed', op: 'embed', sum_total_tokens: 5, count: 1 },
    ],
  );
  assert.deepEqual(json.call_buckets, [], 'no call metrics → no call rows');
});

test('group totals add up to the ungrouped totals', async (t) => {
  const h = await seed(t);
  const metrics = { call_metrics: [{ metric: 'call_count' }, { metric: 'error_count' }] };
  const plain = (await stats(h, metrics)).json.call_buckets;
  const grouped = (await stats(h, { ...metrics, group_by: ['status', 'op'] })).json.call_buckets;
  const sum = (rows: any[], k: string) => rows.reduce((n, r) => n + r[k], 0);
  assert.equal(sum(grouped, 'sum_call_count'), sum(plain, 'sum_call_count'));
  assert.equal(sum(grouped, 'sum_error_count'), sum(plain, 'sum_error_count'));
  assert.equal(sum(plain, 'sum_call_count'), 5);
});

test('bad group_by: unknown dimension or more than two → 422; a repeated one → 400', async (t) => {
  const h = await seed(t);
  const metrics = { call_metrics: [{ metric: 'call_count' }] };
  assert.equal((await stats(h, { ...metrics, group_by: ['colour'] })).status, 422);
  assert.equal((await stats(h, { ...metrics, group_by: ['op', 'status', 'model'] })).status, 422);
  const repeated = await stats(h, { ...metrics, group_by: ['op', 'op'] });
  assert.equal(repeated.status, 400);
  assert.match(repeated.json.reason, /repeat/);
});

test('a grouped answer over 100,000 rows (buckets × groups) → 400 with a reason', async (t) => {
  const h = await seed(t);
  // 10,000 one-second buckets (the cap of §4.9)
  const body = {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T12:46:40Z',
    granularity: 1,
    group_by: ['op', 'status'],
    call_metrics: [{ metric: 'call_count' }],
  };
  const fine = await stats(h, body);
  assert.equal(fine.status, 200);
  assert.equal(fine.json.call_buckets.length, 40_000, '4 groups × 10,000 buckets');
  // nine more ops: 13 groups × 10,000 buckets
  for (let i = 0; i < 9; i += 1) {
    const res = await h.post('/call/start', makeStart({ op_name: `op-${i}`, started_at: '2025-01-01T10:08:00Z' }));
    assert.equal(res.statusCode, 200);
  }
  const tooMany = await stats(h, body);
  assert.equal(tooMany.status, 400, JSON.stringify(tooMany.json).slice(0, 200));
  assert.match(tooMany.json.reason, /100000 rows/);
});
