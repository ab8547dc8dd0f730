import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { assertValidationBody, fixtureApp } from './calls-fixture.js';

/** `/calls/stats` (docs/spec/calls.md §4.9; checklist items 38 and 39). */

async function stats(h: TestApp, body: Record<string, unknown>, key?: string): Promise<Record<string, any>> {
  const res = await h.post('/calls/stats', { project_id: PROJECT, ...body }, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function statsStatus(
  h: TestApp,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, any> }> {
  return h
    .post('/calls/stats', { project_id: PROJECT, ...body })
    .then((res) => ({ status: res.statusCode, body: res.json() }));
}

/** Writes a finished call; `ms` is its latency. */
async function call(
  h: TestApp,
  id: string,
  startedAt: string,
  ms: number | null,
  extra: { end?: Record<string, unknown>; start?: Record<string, unknown> } = {},
): Promise<void> {
  assert.equal((await h.post('/call/start', makeStart({ id, started_at: startedAt, ...extra.start }))).statusCode, 200);
  if (ms === null) return;
  const endedAt = new Date(Date.parse(startedAt) + ms).toISOString();
  assert.equal((await h.post('/call/end', makeEnd(id, { ended_at: endedAt, ...extra.end }))).statusCode, 200);
}

const EXAMPLE = {
  start: '2025-01-01T10:00:00Z',
  end: '2025-01-01T10:15:00Z',
  granularity: 300,
  call_metrics: [{ metric: 'call_count' }, { metric: 'latency_ms', aggregations: ['max'], percentiles: [50] }],
};

test('checklist 38: the §4.9 example gives three buckets with sum_call_count 2, 1, 1', async (t) => {
  const h = await fixtureApp(t);
  const res = await stats(h, EXAMPLE);
  assert.deepEqual(res, {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T10:15:00Z',
    granularity: 300,
    timezone: 'UTC',
    usage_buckets: [],
    call_buckets: [
      { timestamp: '2025-01-01T10:00:00Z', sum_call_count: 2, max_latency_ms: 2500, p50_latency_ms: 1500, count: 2 },
      { timestamp: '2025-01-01T10:05:00Z', sum_call_count: 1, max_latency_ms: 1000, p50_latency_ms: 1000, count: 1 },
      { timestamp: '2025-01-01T10:10:00Z', sum_call_count: 1, max_latency_ms: null, p50_latency_ms: null, count: 1 },
    ],
  });
});

test('checklist 38: end before start → 400 with a reason', async (t) => {
  const h = await fixtureApp(t);
  const res = await statsStatus(h, { ...EXAMPLE, start: '2025-01-01T10:15:00Z', end: '2025-01-01T10:00:00Z' });
  assert.equal(res.status, 400);
  assert.equal(typeof res.body.reason, 'string');
});

test('checklist 39: an unknown call metric → 422 detail (literal_error at the metric)', async (t) => {
  const h = await fixtureApp(t);
  const res = await statsStatus(h, { start: EXAMPLE.start, call_metrics: [{ metric: 'not_a_metric' }] });
  assert.equal(res.status, 422);
  const detail = assertValidationBody(res.body);
  assert.deepEqual(detail[0]!.loc, ['body', 'call_metrics', '0', 'metric']);
  assert.equal(detail[0]!.type, 'literal_error');
});

test('schema errors are 422: bad aggregation, unknown key in a spec or the body, missing start', async (t) => {
  const h = await buildTestApp(t);
  const cases: Array<[Record<string, unknown>, string[], string]> = [
    [
      { start: EXAMPLE.start, call_metrics: [{ metric: 'call_count', aggregations: ['median'] }] },
      ['body', 'call_metrics', '0', 'aggregations', '0'],
      'literal_error',
    ],
    [
      { start: EXAMPLE.start, usage_metrics: [{ metric: 'input_tokens', extra: 1 }] },
      ['body', 'usage_metrics', '0', 'extra'],
      'extra_forbidden',
    ],
    [{ start: EXAMPLE.start, foo: 1 }, ['body', 'foo'], 'extra_forbidden'],
    [{ end: EXAMPLE.end }, ['body', 'start'], 'missing'],
    [{ start: 'yesterday' }, ['body', 'start'], 'datetime_parsing'],
  ];
  for (const [body, loc, type] of cases) {
    const res = await statsStatus(h, body);
    assert.equal(res.status, 422, JSON.stringify(body));
    const detail = assertValidationBody(res.body);
    assert.ok(
      detail.some((d) => d.type === type && JSON.stringify(d.loc) === JSON.stringify(loc)),
      JSON.stringify(res.body),
    );
  }
});

test('§4.9 validation 400s: range over 366 days, granularity <= 0, unknown timezone, percentile outside [0, 100]', async (t) => {
  const h = await buildTestApp(t);
  const metrics = { call_metrics: [{ metric: 'call_count' }] };
  const bad: Array<Record<string, unknown>> = [
    { start: '2024-01-01T00:00:00Z', end: '2025-01-02T00:00:01Z', ...metrics },
    { ...EXAMPLE, granularity: 0 },
    { ...EXAMPLE, granularity: -300 },
    { ...EXAMPLE, timezone: 'Mars/Olympus_Mons' },
    { ...EXAMPLE, call_metrics: [{ metric: 'latency_ms', percentiles: [101] }] },
    { ...EXAMPLE, usage_metrics: [{ metric: 'input_tokens', percentiles: [-0.5] }] },
  ];
  for (const body of bad) {
    const res = await statsStatus(h, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(typeof res.body.reason, 'string');
  }
  // exactly 366 days is allowed, and the timezone name is matched case-insensitively
  assert.equal(
    (await statsStatus(h, { start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z', ...metrics })).status,
    200,
  );
  assert.equal((await statsStatus(h, { ...EXAMPLE, timezone: 'europe/berlin' })).status, 200);
});

test('a granularity above the range gives one epoch-aligned bucket; an instant past year 9999 → 400', async (t) => {
  const h = await fixtureApp(t);
  const res = await stats(h, { ...EXAMPLE, granularity: 10 ** 12, timezone: 'Europe/Berlin' });
  assert.deepEqual(
    res.call_buckets.map((b: any) => [b.timestamp, b.sum_call_count]),
    [['1969-12-31T23:00:00Z', 4]],
  );
  const far = await statsStatus(h, { ...EXAMPLE, start: 1e15, end: 1e15 + 1 });
  assert.equal(far.status, 400);
  assert.equal(typeof far.body.reason, 'string');
});

test('empty buckets read 0 for sum/avg/count and null for min/max/percentiles', async (t) => {
  const h = await fixtureApp(t);
  const res = await stats(h, {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T10:30:00Z',
    granularity: 300,
    call_metrics: [
      {
        metric: 'latency_ms',
        aggregations: ['sum', 'avg', 'min', 'max', 'count', 'count_true', 'count_false'],
        percentiles: [90],
      },
    ],
  });
  assert.equal(res.call_buckets.length, 6);
  assert.deepEqual(res.call_buckets[4], {
    timestamp: '2025-01-01T10:20:00Z',
    sum_latency_ms: 0,
    avg_latency_ms: 0,
    min_latency_ms: null,
    max_latency_ms: null,
    count_latency_ms: 0,
    count_true_latency_ms: 0,
    count_false_latency_ms: 0,
    p90_latency_ms: null,
    count: 0,
  });
  // a bucket whose only call is running: the call counts, its latency does not
  assert.deepEqual(res.call_buckets[2], {
    timestamp: '2025-01-01T10:10:00Z',
    sum_latency_ms: 0,
    avg_latency_ms: 0,
    min_latency_ms: null,
    max_latency_ms: null,
    count_latency_ms: 0,
    count_true_latency_ms: 0,
    count_false_latency_ms: 0,
    p90_latency_ms: null,
    count: 1,
  });
  assert.equal(res.call_buckets[0].avg_latency_ms, 1500);
  assert.equal(res.call_buckets[0].min_latency_ms, 500);
});

test('percentiles interpolate linearly between closest ranks; p99.9 keeps its fraction in the column name', async (t) => {
  const h = await buildTestApp(t);
  for (const [i, ms] of [1000, 100, 300, 200].entries()) await call(h, `p${i}`, `2025-01-01T10:0${i}:00Z`, ms);
  const res = await stats(h, {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T11:00:00Z',
    granularity: 3600,
    call_metrics: [{ metric: 'latency_ms', aggregations: [], percentiles: [0, 25, 50, 90, 99.9, 100] }],
  });
  assert.equal(res.call_buckets.length, 1);
  const b = res.call_buckets[0];
  assert.equal(b.p0_latency_ms, 100);
  assert.equal(b.p25_latency_ms, 175);
  assert.equal(b.p50_latency_ms, 250);
  assert.ok(Math.abs(b.p90_latency_ms - 790) < 1e-9, String(b.p90_latency_ms));
  assert.ok(Math.abs(b['p99.9_latency_ms'] - 997.9) < 1e-9, String(b['p99.9_latency_ms']));
  assert.equal(b.p100_latency_ms, 1000);
  assert.equal(b.count, 4);
  assert.ok(!('sum_latency_ms' in b), 'explicit empty aggregations with percentiles add no sum');
});

test('error_count, count_true/count_false and aggregation defaults', async (t) => {
  const h = await fixtureApp(t);
  const res = await stats(h, {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T10:15:00Z',
    granularity: 900,
    call_metrics: [
      { metric: 'error_count', aggregations: ['sum', 'count_true', 'count_false'] },
      { metric: 'call_count', aggregations: null },
    ],
  });
  // c-0003 failed; aggregations: null with no percentiles falls back to sum
  assert.deepEqual(res.call_buckets, [
    {
      timestamp: '2025-01-01T10:00:00Z',
      sum_error_count: 1,
      count_true_error_count: 1,
      count_false_error_count: 3,
      sum_call_count: 4,
      count: 4,
    },
  ]);
});

test('Europe/Berlin daily buckets start at local midnight (23:00Z in winter, 22:00Z in summer)', async (t) => {
  const h = await buildTestApp(t);
  await call(h, 'late', '2025-01-01T22:30:00Z', 10); // 23:30 in Berlin, 1 January
  await call(h, 'after', '2025-01-01T23:30:00Z', 10); // 00:30 in Berlin, 2 January
  const body = {
    start: '2025-01-01T00:00:00Z',
    end: '2025-01-03T00:00:00Z',
    granularity: 86400,
    call_metrics: [{ metric: 'call_count' }],
  };
  const berlin = await stats(h, { ...body, timezone: 'Europe/Berlin' });
  assert.equal(berlin.timezone, 'Europe/Berlin');
  assert.deepEqual(
    berlin.call_buckets.map((b: any) => [b.timestamp, b.sum_call_count]),
    [
      ['2024-12-31T23:00:00Z', 1],
      ['2025-01-01T23:00:00Z', 1],
      ['2025-01-02T23:00:00Z', 0],
    ],
  );
  const utc = await stats(h, body);
  assert.deepEqual(
    utc.call_buckets.map((b: any) => [b.timestamp, b.sum_call_count]),
    [
      ['2025-01-01T00:00:00Z', 2],
      ['2025-01-02T00:00:00Z', 0],
    ],
  );
  const summer = await stats(h, {
    ...body,
    start: '2025-07-01T00:00:00Z',
    end: '2025-07-02T00:00:00Z',
    timezone: 'Europe/Berlin',
  });
  assert.deepEqual(
    summer.call_buckets.map((b: any) => b.timestamp),
    ['2025-06-30T22:00:00Z', '2025-07-01T22:00:00Z'],
  );
  // across the spring change the local day is 23 hours long
  const spring = await stats(h, {
    ...body,
    start: '2025-03-29T12:00:00Z',
    end: '2025-03-31T12:00:00Z',
    timezone: 'Europe/Berlin',
  });
  assert.deepEqual(
    spring.call_buckets.map((b: any) => b.timestamp),
    ['2025-03-28T23:00:00Z', '2025-03-29T23:00:00Z', '2025-03-30T22:00:00Z'],
  );
});

test('an hourly bucket in a +05:45 zone starts at quarter past the UTC hour', async (t) => {
  const h = await buildTestApp(t);
  await call(h, 'k1', '2025-01-01T00:10:00Z', 10);
  const res = await stats(h, {
    start: '2025-01-01T00:00:00Z',
    end: '2025-01-01T02:00:00Z',
    granularity: 3600,
    timezone: 'Asia/Kathmandu',
    call_metrics: [{ metric: 'call_count' }],
  });
  assert.deepEqual(
    res.call_buckets.map((b: any) => [b.timestamp, b.sum_call_count]),
    [
      ['2024-12-31T23:15:00Z', 1],
      ['2025-01-01T00:15:00Z', 0],
      ['2025-01-01T01:15:00Z', 0],
    ],
  );
});

test('the range is start-inclusive and end-exclusive; the first bucket may begin before start', async (t) => {
  const h = await buildTestApp(t);
  await call(h, 'before', '2025-01-01T10:01:59Z', 10);
  await call(h, 'at-start', '2025-01-01T10:02:00Z', 10);
  await call(h, 'at-end', '2025-01-01T10:12:00Z', 10);
  const res = await stats(h, {
    start: '2025-01-01T10:02:00Z',
    end: '2025-01-01T10:12:00Z',
    granularity: 300,
    call_metrics: [{ metric: 'call_count' }],
  });
  assert.deepEqual(
    res.call_buckets.map((b: any) => [b.timestamp, b.sum_call_count]),
    [
      ['2025-01-01T10:00:00Z', 1],
      ['2025-01-01T10:05:00Z', 0],
      ['2025-01-01T10:10:00Z', 0],
    ],
  );
});

test('automatic granularity follows the range (300, 3600, 21600, 43200, 86400 s)', async (t) => {
  const h = await buildTestApp(t);
  const hour = 3600_000;
  const start = Date.parse('2025-01-01T00:00:00Z');
  const cases: Array<[number, number]> = [
    [hour, 300],
    [2 * hour, 300],
    [2 * hour + 1000, 3600],
    [12 * hour, 3600],
    [2 * 24 * hour, 21600],
    [10 * 24 * hour, 43200],
    [30 * 24 * hour, 86400],
  ];
  for (const [range, expected] of cases) {
    const res = await stats(h, {
      start: new Date(start).toISOString(),
      end: new Date(start + range).toISOString(),
      call_metrics: [{ metric: 'call_count' }],
    });
    assert.equal(res.granularity, expected, `range ${range} ms`);
    assert.equal(res.call_buckets.length, Math.ceil(range / (expected * 1000)), `range ${range} ms`);
  }
});

test('more than 10000 buckets raise the granularity to floor(range / 10000) + 1', async (t) => {
  const h = await buildTestApp(t);
  await call(h, 'x', '2024-06-01T00:00:00Z', 10);
  const res = await stats(h, {
    start: '2024-01-01T00:00:00Z',
    end: '2025-01-01T00:00:00Z',
    granularity: 60,
    call_metrics: [{ metric: 'call_count' }],
  });
  const range = 366 * 86400;
  assert.equal(res.granularity, Math.floor(range / 10000) + 1);
  assert.ok(res.call_buckets.length <= 10000 + 1);
  assert.equal(
    res.call_buckets.length,
    Math.ceil((range + ((Date.parse('2024-01-01T00:00:00Z') / 1000) % res.granularity)) / res.granularity),
  );
  assert.equal(
    res.call_buckets.reduce((n: number, b: any) => n + b.sum_call_count, 0),
    1,
  );
  const small = await stats(h, {
    start: '2025-01-01T00:00:00Z',
    end: '2025-01-02T00:00:00Z',
    granularity: 1,
    call_metrics: [{ metric: 'call_count' }],
  });
  assert.equal(small.granularity, 9);
  assert.equal(small.call_buckets.length, 9600);
});

test('usage metrics: one row per bucket × model seen in the range, aliases summed, costs without prices', async (t) => {
  const h = await buildTestApp(t);
  const usage = (u: Record<string, unknown>) => ({ end: { summary: { usage: u } } });
  await call(
    h,
    'u1',
    '2025-01-01T10:00:00Z',
    100,
    usage({
      'unpriced-llm': { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, requests: 1 },
      claude: { input_tokens: 7, output_tokens: 3 },
    }),
  );
  await call(
    h,
    'u2',
    '2025-01-01T10:01:00Z',
    100,
    usage({
      'unpriced-llm': {
        prompt_tokens: 20,
        input_tokens: 1,
        completion_tokens: 4,
        total_tokens: 25,
        cache_read_input_tokens: 6,
      },
    }),
  );
  await call(
    h,
    'u3',
    '2025-01-01T10:11:00Z',
    100,
    usage({ claude: { input_tokens: 2, output_tokens: 1, total_tokens: 3 } }),
  );
  await call(h, 'none', '2025-01-01T10:06:00Z', 100);
  const res = await stats(h, {
    start: '2025-01-01T10:00:00Z',
    end: '2025-01-01T10:15:00Z',
    granularity: 300,
    usage_metrics: [
      { metric: 'input_tokens' },
      { metric: 'output_tokens', aggregations: ['max'] },
      { metric: 'total_tokens', aggregations: ['sum', 'count'] },
      { metric: 'cache_read_input_tokens' },
      { metric: 'total_cost', aggregations: ['sum', 'avg'] },
    ],
  });
  const row = (ts: string, model: string, v: number[], count: number) => ({
    timestamp: ts,
    model,
    sum_input_tokens: v[0],
    max_output_tokens: v[1],
    sum_total_tokens: v[2],
    count_total_tokens: v[3],
    sum_cache_read_input_tokens: v[4],
    sum_total_cost: 0,
    avg_total_cost: null,
    count,
  });
  assert.deepEqual(res.usage_buckets, [
    row('2025-01-01T10:00:00Z', 'claude', [7, 3, 0, 0, 0], 1),
    row('2025-01-01T10:00:00Z', 'unpriced-llm', [31, 5, 40, 2, 6], 2),
    row('2025-01-01T10:05:00Z', 'claude', [0, null as never, 0, 0, 0], 0),
    row('2025-01-01T10:05:00Z', 'unpriced-llm', [0, null as never, 0, 0, 0], 0),
    row('2025-01-01T10:10:00Z', 'claude', [2, 1, 3, 1, 0], 1),
    row('2025-01-01T10:10:00Z', 'unpriced-llm', [0, null as never, 0, 0, 0], 0),
  ]);
  assert.deepEqual(res.call_buckets, []);
  const none = await stats(h, {
    start: '2025-01-01T10:05:00Z',
    end: '2025-01-01T10:10:00Z',
    usage_metrics: [{ metric: 'input_tokens' }],
  });
  assert.deepEqual(none.usage_buckets, [], 'no usage in the range → no usage rows');
});

test('filter fields are honoured and deleted calls are left out', async (t) => {
  const h = await fixtureApp(t);
  const count = async (body: Record<string, unknown>): Promise<number[]> =>
    (await stats(h, { ...EXAMPLE, call_metrics: [{ metric: 'call_count' }], ...body })).call_buckets.map(
      (b: any) => b.sum_call_count,
    );
  assert.deepEqual(await count({ filter: { op_names: ['chat'] } }), [1, 1, 0]);
  assert.deepEqual(await count({ filter: { trace_roots_only: true } }), [1, 1, 1]);
  assert.deepEqual(await count({ filter: { trace_ids: ['c-0001'] } }), [2, 0, 0]);
  assert.deepEqual(await count({ filter: { call_ids: ['c-0002', 'c-0004'] } }), [1, 0, 1]);
  assert.equal((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['c-0001'] })).statusCode, 200);
  assert.deepEqual(await count({}), [0, 1, 1]);
  const tooMany = await statsStatus(h, {
    ...EXAMPLE,
    filter: { call_ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) },
  });
  assert.equal(tooMany.status, 400);
});

test('end defaults to now', async (t) => {
  const h = await buildTestApp(t);
  const before = Date.now();
  const res = await stats(h, {
    start: new Date(before - 3600_000).toISOString(),
    call_metrics: [{ metric: 'call_count' }],
  });
  const end = Date.parse(res.end);
  assert.ok(end >= before - 1000 && end <= Date.now() + 1000, res.end);
  assert.equal(res.granularity, 300);
  assert.ok(res.call_buckets.length === 12 || res.call_buckets.length === 13);
});

test('tenancy: bob cannot read acme/demo stats (403); no credentials → 401', async (t) => {
  const h = await fixtureApp(t);
  const res = await h.post('/calls/stats', { project_id: PROJECT, ...EXAMPLE }, h.bobKey);
  assert.equal(res.statusCode, 403);
  assert.equal(typeof res.json().reason, 'string');
  assert.equal((await h.post('/calls/stats', { project_id: PROJECT, ...EXAMPLE }, null)).statusCode, 401);
});
