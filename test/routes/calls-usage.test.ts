import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { assertValidationBody } from './calls-fixture.js';

/** `/calls/usage` and `/trace/usage` (docs/spec/calls.md §4.10, §4.11; checklist items 34 and 35). */

interface Spec {
  id: string;
  parent?: string;
  trace?: string;
  usage?: Record<string, Record<string, unknown>>;
  running?: boolean;
  startedAt?: string;
}

async function write(h: TestApp, specs: Spec[]): Promise<void> {
  for (const s of specs) {
    const start = makeStart({
      id: s.id,
      trace_id: s.trace ?? 't',
      parent_id: s.parent ?? null,
      started_at: s.startedAt ?? '2025-01-01T10:00:00Z',
    });
    assert.equal((await h.post('/call/start', start)).statusCode, 200);
    if (s.running) continue;
    assert.equal(
      (await h.post('/call/end', makeEnd(s.id, { summary: s.usage ? { usage: s.usage } : {} }))).statusCode,
      200,
    );
  }
}

async function usage(
  h: TestApp,
  path: '/calls/usage' | '/trace/usage',
  body: Record<string, unknown>,
  key?: string,
): Promise<Record<string, any>> {
  const res = await h.post(path, { project_id: PROJECT, ...body }, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** An `LLMAggregatedUsage` with defaults. */
function agg(
  fields: Partial<Record<string, number | null>>,
  costs: number | null = null,
): Record<string, number | null> {
  return {
    requests: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    prompt_tokens_total_cost: costs,
    completion_tokens_total_cost: costs,
    cache_read_input_tokens_total_cost: costs,
    cache_creation_input_tokens_total_cost: costs,
    ...fields,
  };
}

const PARENT_CHILD: Spec[] = [
  { id: 'P', usage: { m: { prompt_tokens: 10, completion_tokens: 5, requests: 1 } } },
  { id: 'C', parent: 'P', usage: { m: { prompt_tokens: 1, completion_tokens: 1, requests: 1 } } },
];

test('checklist 34: /trace/usage rolls the child into the parent', async (t) => {
  const h = await buildTestApp(t);
  await write(h, PARENT_CHILD);
  const res = await usage(h, '/trace/usage', { filter: { trace_ids: ['t'] } });
  assert.deepEqual(res, {
    call_usage: {
      P: { m: agg({ requests: 2, prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 }) },
      C: { m: agg({ requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) },
    },
    unfinished_call_ids: [],
  });
});

test('checklist 35: /calls/usage reports every requested id, {} for unknown ones', async (t) => {
  const h = await buildTestApp(t);
  await write(h, PARENT_CHILD);
  const res = await usage(h, '/calls/usage', { call_ids: ['P', 'nope', 'P'] });
  assert.deepEqual(res, {
    call_usage: { P: { m: agg({ requests: 2, prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 }) }, nope: {} },
    unfinished_call_ids: [],
  });
});

const FAMILY: Spec[] = [
  { id: 'R', trace: 'R', usage: { a: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, requests: 1 } } },
  { id: 'A', trace: 'R', parent: 'R' },
  {
    id: 'G',
    trace: 'R',
    parent: 'A',
    usage: {
      a: { input_tokens: 4, output_tokens: 2, requests: 1, cache_read_input_tokens: 3 },
      b: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 9, requests: 2 },
    },
  },
  { id: 'B', trace: 'R', parent: 'R', running: true },
  { id: 'Z', trace: 'R', parent: 'R', usage: { zero: { requests: 0, prompt_tokens: 0, completion_tokens: 0 } } },
  { id: 'other', trace: 'O', usage: { a: { prompt_tokens: 100, completion_tokens: 100 } }, running: false },
  { id: 'orun', trace: 'O', parent: 'other', running: true },
];

test('/calls/usage rolls usage up through grandchildren, sums aliases, fills total_tokens, drops empty models', async (t) => {
  const h = await buildTestApp(t);
  await write(h, FAMILY);
  const res = await usage(h, '/calls/usage', { call_ids: ['R', 'A', 'G', 'Z', 'B'] });
  const gA = { requests: 1, prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, cache_read_input_tokens: 3 };
  const gB = { requests: 2, prompt_tokens: 5, completion_tokens: 0, total_tokens: 9 };
  assert.deepEqual(res.call_usage, {
    R: {
      a: agg({ requests: 2, prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, cache_read_input_tokens: 3 }),
      b: agg(gB),
    },
    A: { a: agg(gA), b: agg(gB) },
    G: { a: agg(gA), b: agg(gB) },
    Z: {},
    B: {},
  });
  // unfinished calls of the aggregated traces only (orun belongs to a trace nobody asked for)
  assert.deepEqual(res.unfinished_call_ids, ['B']);
  const both = await usage(h, '/calls/usage', { call_ids: ['other', 'A'] });
  assert.deepEqual(both.unfinished_call_ids, ['B', 'orun']);
  assert.deepEqual(both.call_usage.other, {
    a: agg({ prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 }),
  });
});

test('/calls/usage include_costs: cost fields are 0.0 without prices, null when not asked', async (t) => {
  const h = await buildTestApp(t);
  await write(h, PARENT_CHILD);
  const withCosts = await usage(h, '/calls/usage', { call_ids: ['P'], include_costs: true });
  assert.deepEqual(
    withCosts.call_usage.P.m,
    agg({ requests: 2, prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 }, 0),
  );
  const traced = await usage(h, '/trace/usage', { filter: { trace_ids: ['t'] }, include_costs: true });
  assert.equal(traced.call_usage.C.m.prompt_tokens_total_cost, 0);
  const without = await usage(h, '/calls/usage', { call_ids: ['P'], include_costs: false });
  assert.equal(without.call_usage.P.m.prompt_tokens_total_cost, null);
});

test('deleted calls are left out of roll-ups and report {}', async (t) => {
  const h = await buildTestApp(t);
  await write(h, FAMILY);
  assert.equal((await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['A'] })).statusCode, 200);
  const res = await usage(h, '/calls/usage', { call_ids: ['R', 'A', 'G'] });
  assert.deepEqual(res.call_usage, {
    R: { a: agg({ requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) },
    A: {},
    G: {},
  });
  const traced = await usage(h, '/trace/usage', { filter: { trace_ids: ['R'] } });
  assert.deepEqual(Object.keys(traced.call_usage).sort(), ['B', 'R', 'Z']);
});

test('/calls/usage: a trace larger than limit → 413; limit < 1 → 400; empty call_ids → empty result', async (t) => {
  const h = await buildTestApp(t);
  await write(h, FAMILY);
  const big = await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['R'], limit: 4 });
  assert.equal(big.statusCode, 413);
  assert.deepEqual(big.json(), { reason: 'Request too large' });
  // trace R has exactly five calls: a limit of five is enough, and trace O is processed on its own
  assert.equal(
    (await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['R', 'other'], limit: 5 })).statusCode,
    200,
  );
  for (const limit of [0, -1])
    assert.equal((await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['R'], limit })).statusCode, 400);
  assert.deepEqual(await usage(h, '/calls/usage', { call_ids: [] }), { call_usage: {}, unfinished_call_ids: [] });
  const missing = await h.post('/calls/usage', { project_id: PROJECT });
  assert.equal(missing.statusCode, 422);
  assert.deepEqual(assertValidationBody(missing.json())[0]!.loc, ['body', 'call_ids']);
});

test('/trace/usage rolls up only among selected calls and honours query and limit', async (t) => {
  const h = await buildTestApp(t);
  await write(
    h,
    FAMILY.map((s, i) => ({ ...s, startedAt: `2025-01-01T10:00:0${i}Z` })),
  );
  // G selected without its parent chain: it counts only for itself; R without children: only its own
  const res = await usage(h, '/trace/usage', { filter: { call_ids: ['R', 'G'] } });
  assert.deepEqual(res.call_usage, {
    R: { a: agg({ requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) },
    G: {
      a: agg({ requests: 1, prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, cache_read_input_tokens: 3 }),
      b: agg({ requests: 2, prompt_tokens: 5, total_tokens: 9 }),
    },
  });
  const query = { $expr: { $eq: [{ $getField: 'trace_id' }, { $literal: 'O' }] } };
  const running = await usage(h, '/trace/usage', { query });
  assert.deepEqual(Object.keys(running.call_usage), ['other', 'orun']);
  assert.deepEqual(running.unfinished_call_ids, ['orun']);
  // limit keeps the first calls in default order (started_at asc)
  const limited = await usage(h, '/trace/usage', { filter: { trace_ids: ['R'] }, limit: 2 });
  assert.deepEqual(Object.keys(limited.call_usage), ['R', 'A']);
  assert.deepEqual(limited.call_usage.A, {});
  assert.equal((await h.post('/trace/usage', { project_id: PROJECT, limit: 0 })).statusCode, 400);
  const badField = await h.post('/trace/usage', {
    project_id: PROJECT,
    query: { $expr: { $eq: [{ $getField: 'bogus' }, { $literal: 1 }] } },
  });
  assert.equal(badField.statusCode, 422);
  assert.equal(typeof badField.json().reason, 'string');
});

test('tenancy: bob cannot read acme/demo usage (403) on either endpoint', async (t) => {
  const h = await buildTestApp(t);
  await write(h, PARENT_CHILD);
  for (const [path, body] of [
    ['/calls/usage', { call_ids: ['P'] }],
    ['/trace/usage', {}],
  ] as const) {
    const res = await h.post(path, { project_id: PROJECT, ...body }, h.bobKey);
    assert.equal(res.statusCode, 403, path);
    assert.equal(typeof res.json().reason, 'string');
  }
});
