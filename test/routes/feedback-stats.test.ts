import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';

/**
 * `/feedback/payload_schema` and `/feedback/stats` (docs/spec/objects.md §7.7, §7.8). Feedback rows get
 * `created_at = now`, so windows are built around the moment of the test.
 */

async function add(h: TestApp, payload: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await h.post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/c`,
    feedback_type: 'score',
    payload,
    ...extra,
  });
  assert.equal(res.statusCode, 200, res.body);
}

const iso = (ms: number): string => new Date(ms).toISOString();

test('payload_schema: leaf paths with types, newest payload per trigger_ref, filters', async (t) => {
  const h = await buildTestApp(t);
  await add(
    h,
    { score: 1, ok: true, label: 'a', nested: { x: 2, 'dot.key': 1 }, list: [1], ' ': 1 },
    { feedback_type: 'score' },
  );
  await add(h, { score: 'high', ok: null }, { feedback_type: 'score' });
  await add(h, { other: 1 }, { feedback_type: 'else' });
  const start = iso(Date.now() - 60_000);
  const res = await h.post('/feedback/payload_schema', { project_id: PROJECT, start, feedback_type: 'score' });
  assert.equal(res.statusCode, 200, res.body);
  // both rows share trigger_ref null: only the newest payload is sampled
  assert.deepEqual(res.json().paths, [
    { json_path: 'ok', value_type: 'boolean' },
    { json_path: 'score', value_type: 'categorical' },
  ]);
  const many = await h.post('/feedback/payload_schema', { project_id: PROJECT, start });
  assert.deepEqual(
    many.json().paths.map((p: any) => p.json_path),
    ['other'],
  );
  const range = await h.post('/feedback/payload_schema', {
    project_id: PROJECT,
    start: '2025-01-01T00:00:00Z',
    end: '2025-03-01T00:00:00Z',
  });
  assert.equal(range.statusCode, 422);
  const inverted = await h.post('/feedback/payload_schema', {
    project_id: PROJECT,
    start: '2025-01-02T00:00:00Z',
    end: '2025-01-01T00:00:00Z',
  });
  assert.equal(inverted.statusCode, 422);
  assert.equal(
    (await h.post('/feedback/payload_schema', { project_id: PROJECT, start, sample_limit: 0 })).statusCode,
    422,
  );
});

test('payload_schema: distinct trigger refs are sampled separately; prefix match with :*', async (t) => {
  const h = await buildTestApp(t);
  const trigger = (n: string) => `weave:///${PROJECT}/object/mon:${n}`;
  await add(
    h,
    { score: 1 },
    {
      feedback_type: 'wandb.agent_monitor',
      runnable_ref: `weave:///${PROJECT}/op/s:d`,
      call_ref: `weave:///${PROJECT}/call/c`,
      trigger_ref: trigger('a'),
    },
  );
  await add(
    h,
    { flag: false },
    {
      feedback_type: 'wandb.agent_monitor',
      runnable_ref: `weave:///${PROJECT}/op/s:d`,
      call_ref: `weave:///${PROJECT}/call/c`,
      trigger_ref: trigger('b'),
    },
  );
  const start = iso(Date.now() - 60_000);
  const all = await h.post('/feedback/payload_schema', {
    project_id: PROJECT,
    start,
    trigger_ref: `weave:///${PROJECT}/object/mon:*`,
  });
  assert.deepEqual(all.json().paths, [
    { json_path: 'flag', value_type: 'boolean' },
    { json_path: 'score', value_type: 'numeric' },
  ]);
  const one = await h.post('/feedback/payload_schema', { project_id: PROJECT, start, trigger_ref: trigger('a') });
  assert.deepEqual(one.json().paths, [{ json_path: 'score', value_type: 'numeric' }]);
  const newest = await h.post('/feedback/payload_schema', { project_id: PROJECT, start, sample_limit: 1 });
  assert.deepEqual(newest.json().paths, [{ json_path: 'flag', value_type: 'boolean' }]);
});

test('stats: buckets from start, aggregates and percentiles per metric, window_stats, empty buckets null', async (t) => {
  const h = await buildTestApp(t);
  await add(h, { score: 2, good: true, tag: 'x' });
  await add(h, { score: '4', good: 'false', tag: 'y' });
  await add(h, { score: 'n/a', good: 3 });
  const now = Date.now();
  const start = iso(now - 3_600_000 - 1000);
  const end = iso(now + 60_000);
  const res = await h.post('/feedback/stats', {
    project_id: PROJECT,
    start,
    end,
    granularity: 3600,
    metrics: [
      { json_path: 'score', aggregations: ['sum', 'avg', 'min', 'max', 'count'], percentiles: [50] },
      { json_path: 'good', value_type: 'boolean' },
      { json_path: 'tag', value_type: 'categorical' },
    ],
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.granularity, 3600);
  assert.equal(body.timezone, 'UTC');
  assert.equal(body.buckets.length, 2);
  assert.equal(
    body.buckets[0].timestamp,
    new Date(Date.parse(start))
      .toISOString()
      .replace('.000Z', 'Z')
      .replace(/\.(\d{3})Z$/, '.$1000Z'),
  );
  assert.deepEqual(body.buckets[0], {
    ...body.buckets[0],
    count: 0,
    sum_score: null,
    avg_score: null,
    count_score: 0,
    p50_score: null,
    count_true_good: 0,
  });
  const b = body.buckets[1];
  assert.deepEqual(
    [b.count, b.sum_score, b.avg_score, b.min_score, b.max_score, b.count_score, b.p50_score],
    [3, 6, 3, 2, 4, 2, 3],
  );
  assert.deepEqual([b.count_true_good, b.count_false_good, b.count_tag], [1, 1, 2]);
  assert.deepEqual(body.window_stats.score, { sum: 6, avg: 3, min: 2, max: 4, count: 2, p50: 3 });
  assert.deepEqual(body.window_stats.good, { count_true: 1, count_false: 1 });
  const none = (await h.post('/feedback/stats', { project_id: PROJECT, start, end })).json();
  assert.deepEqual([none.buckets, none.granularity, none.window_stats], [[], 3600, null]);
  const auto = (
    await h.post('/feedback/stats', { project_id: PROJECT, start, end, metrics: [{ json_path: 'score' }] })
  ).json();
  assert.equal(auto.granularity, 300);
  assert.deepEqual(Object.keys(auto.window_stats.score), ['avg', 'min', 'max']);
  assert.equal(
    (
      await h.post('/feedback/stats', {
        project_id: PROJECT,
        start,
        end,
        timezone: 'Nowhere/City',
        metrics: [{ json_path: 'score' }],
      })
    ).statusCode,
    400,
  );
  assert.equal(
    (
      await h.post('/feedback/stats', {
        project_id: PROJECT,
        start: '2025-01-01T00:00:00Z',
        end: '2025-03-01T00:00:00Z',
      })
    ).statusCode,
    422,
  );
});
