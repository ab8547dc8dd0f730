import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** Costs API and cost hydration of calls (docs/spec/objects.md §8; checklist items 42–44; docs/spec/calls.md §2.10). */

async function createCost(
  h: TestApp,
  costs: Record<string, Record<string, unknown>>,
  key?: string,
): Promise<Array<[string, string]>> {
  const res = await h.post('/cost/create', { project_id: PROJECT, costs }, key);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().ids;
}

async function writeCall(
  h: TestApp,
  id: string,
  usage: Record<string, unknown>,
  startedAt = '2025-01-01T10:00:00Z',
): Promise<void> {
  assert.equal((await h.post('/call/start', makeStart({ id, started_at: startedAt }))).statusCode, 200);
  assert.equal((await h.post('/call/end', makeEnd(id, { ended_at: startedAt, summary: { usage } }))).statusCode, 200);
}

async function streamCalls(h: TestApp, body: Record<string, unknown> = {}): Promise<Array<Record<string, any>>> {
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, include_costs: true, ...body });
  assert.equal(res.statusCode, 200, res.body);
  return parseJsonl(res.body) as Array<Record<string, any>>;
}

const byId = (id: string) => ({ $expr: { $eq: [{ $getField: 'id' }, { $literal: id }] } });

test('checklist 42: create, query (units USD, provider default), purge by id', async (t) => {
  const h = await buildTestApp(t);
  const ids = await createCost(h, {
    'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002, effective_date: '2020-01-01T00:00:00Z' },
  });
  assert.equal(ids.length, 1);
  assert.equal(ids[0]![1], 'my-llm');
  const [costId] = ids[0]!;
  const query = async () =>
    (await h.post('/cost/query', { project_id: PROJECT })).json().results as Array<Record<string, any>>;
  assert.deepEqual(await query(), [
    {
      id: costId,
      llm_id: 'my-llm',
      prompt_token_cost: 0.001,
      completion_token_cost: 0.002,
      cache_read_input_token_cost: 0,
      cache_creation_input_token_cost: 0,
      prompt_token_cost_unit: 'USD',
      completion_token_cost_unit: 'USD',
      effective_date: '2020-01-01T00:00:00Z',
      provider_id: 'default',
    },
  ]);
  const refusedQueries = [
    { $expr: { $eq: [{ $getField: 'llm_id' }, { $literal: 'my-llm' }] } },
    // an empty $or names no cost id (mutation check: accepting it answered 200)
    { $expr: { $or: [] } },
  ];
  for (const q of refusedQueries) {
    const refused = await h.post('/cost/purge', { project_id: PROJECT, query: q });
    assert.equal(refused.statusCode, 400, JSON.stringify(q));
    assert.equal(refused.json().reason, 'Can only purge costs by specifying one or more cost ids');
  }
  assert.equal((await query()).length, 1);
  const purged = await h.post('/cost/purge', { project_id: PROJECT, query: byId(costId) });
  assert.equal(purged.statusCode, 200);
  assert.deepEqual(await query(), []);
});

test('cost query: ids in request key order, fields, filters, sort, $in purge; default rows never listed', async (t) => {
  const h = await buildTestApp(t);
  const ids = await createCost(h, {
    b: { prompt_token_cost: 2, completion_token_cost: 2, provider_id: 'p', effective_date: '2024-01-01T00:00:00Z' },
    a: {
      prompt_token_cost: 1,
      completion_token_cost: 1,
      effective_date: '2023-01-01T00:00:00Z',
      prompt_token_cost_unit: 'EUR',
    },
  });
  assert.deepEqual(
    ids.map(([, llm]) => llm),
    ['b', 'a'],
  );
  const sorted = (
    await h.post('/cost/query', { project_id: PROJECT, sort_by: [{ field: 'effective_date', direction: 'asc' }] })
  ).json().results;
  assert.deepEqual(
    sorted.map((r: any) => [r.llm_id, r.prompt_token_cost_unit, r.provider_id]),
    [
      ['a', 'EUR', 'default'],
      ['b', 'USD', 'p'],
    ],
  );
  const filtered = (
    await h.post('/cost/query', {
      project_id: PROJECT,
      fields: ['llm_id'],
      query: { $expr: { $gt: [{ $getField: 'prompt_token_cost' }, { $literal: 1.5 }] } },
    })
  ).json().results;
  assert.deepEqual(filtered, [
    {
      id: null,
      llm_id: 'b',
      prompt_token_cost: null,
      completion_token_cost: null,
      cache_read_input_token_cost: null,
      cache_creation_input_token_cost: null,
      prompt_token_cost_unit: null,
      completion_token_cost_unit: null,
      effective_date: null,
      provider_id: null,
    },
  ]);
  assert.equal(
    (
      await h.post('/cost/query', {
        project_id: PROJECT,
        query: { $expr: { $eq: [{ $getField: 'llm_id' }, { $literal: 'gpt-4o' }] } },
      })
    ).json().results.length,
    0,
  );
  assert.equal((await h.post('/cost/query', { project_id: PROJECT, fields: ['nope'] })).statusCode, 400);
  const purge = await h.post('/cost/purge', {
    project_id: PROJECT,
    query: { $expr: { $in: [{ $getField: 'id' }, ids.map(([id]) => ({ $literal: id }))] } },
  });
  assert.equal(purge.statusCode, 200);
  assert.equal((await h.post('/cost/query', { project_id: PROJECT })).json().results.length, 0);
});

test('checklist 43: a priced call carries summary.weave.costs with the spec fields', async (t) => {
  const h = await buildTestApp(t);
  await createCost(h, {
    'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0.002, effective_date: '2020-01-01T00:00:00Z' },
  });
  await writeCall(h, 'c1', { 'my-llm': { prompt_tokens: 1000, completion_tokens: 500 } });
  const [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  const cost = call.summary.weave.costs['my-llm'];
  assert.equal(cost.prompt_tokens_total_cost, 1.0);
  assert.equal(cost.completion_tokens_total_cost, 1.0);
  assert.equal(cost.pricing_level, 'project');
  assert.equal(cost.pricing_level_id, PROJECT);
  assert.equal(cost.effective_date, '2020-01-01T00:00:00Z');
  assert.equal(cost.prompt_token_cost_unit, 'USD');
  assert.equal(cost.provider_id, 'default');
  assert.equal(cost.prompt_tokens, 1000);
  assert.equal(cost.cache_read_input_tokens_total_cost, 0);
  assert.equal(typeof cost.created_by, 'string');
  assert.equal(call.summary.weave.unpriced_models, undefined);
  const plain = await streamCalls(h, { include_costs: false });
  assert.equal(plain[0]!.summary.weave.costs, undefined);
  // read time: purging the price removes the costs from the same stored call
  const [[costId]] = (await h.post('/cost/query', { project_id: PROJECT })).json().results.map((r: any) => [r.id]);
  await h.post('/cost/purge', { project_id: PROJECT, query: byId(costId) });
  const after = await streamCalls(h);
  assert.equal(after[0]!.summary.weave.costs, undefined);
  assert.deepEqual(after[0]!.summary.weave.unpriced_models, ['my-llm']);
});

test('checklist 44: the price in force at started_at wins; a later one only when nothing earlier exists', async (t) => {
  const h = await buildTestApp(t);
  const usage = { 'my-llm': { prompt_tokens: 1000, completion_tokens: 0 } };
  await writeCall(h, 'c1', usage, '2025-01-01T10:00:00Z');
  const [laterId] = (
    await createCost(h, {
      'my-llm': { prompt_token_cost: 0.005, completion_token_cost: 0, effective_date: '2025-06-01T00:00:00Z' },
    })
  )[0]!;
  let [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  assert.equal(call.summary.weave.costs['my-llm'].prompt_token_cost, 0.005);
  assert.equal(call.summary.weave.costs['my-llm'].prompt_tokens_total_cost, 5);
  await createCost(h, {
    'my-llm': { prompt_token_cost: 0.001, completion_token_cost: 0, effective_date: '2024-01-01T00:00:00Z' },
  });
  await createCost(h, {
    'my-llm': { prompt_token_cost: 0.002, completion_token_cost: 0, effective_date: '2023-01-01T00:00:00Z' },
  });
  [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  assert.equal(call.summary.weave.costs['my-llm'].prompt_token_cost, 0.001);
  assert.equal(call.summary.weave.costs['my-llm'].effective_date, '2024-01-01T00:00:00Z');
  // a call after the later price's date uses it
  await writeCall(h, 'c2', usage, '2025-07-01T00:00:00Z');
  const calls = await streamCalls(h);
  assert.equal(calls[1]!.summary.weave.costs['my-llm'].prompt_token_cost, 0.005);
  assert.ok(laterId);
});

test('cache tokens: prompt cost excludes cached tokens, which are charged at the cache prices', async (t) => {
  const h = await buildTestApp(t);
  await createCost(h, {
    m: {
      prompt_token_cost: 0.01,
      completion_token_cost: 0.03,
      cache_read_input_token_cost: 0.001,
      cache_creation_input_token_cost: 0.02,
      effective_date: '2020-01-01T00:00:00Z',
    },
  });
  await writeCall(h, 'c1', {
    m: {
      input_tokens: 100,
      output_tokens: 10,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 20,
      requests: 2,
      total_tokens: 110,
    },
  });
  const [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  const cost = call.summary.weave.costs.m;
  // (100 - 30 - 20) × 0.01 = 0.5; 10 × 0.03 = 0.3; 30 × 0.001 = 0.03; 20 × 0.02 = 0.4
  assert.ok(Math.abs(cost.prompt_tokens_total_cost - 0.5) < 1e-12);
  assert.ok(Math.abs(cost.completion_tokens_total_cost - 0.3) < 1e-12);
  assert.ok(Math.abs(cost.cache_read_input_tokens_total_cost - 0.03) < 1e-12);
  assert.ok(Math.abs(cost.cache_creation_input_tokens_total_cost - 0.4) < 1e-12);
  assert.deepEqual([cost.prompt_tokens, cost.completion_tokens, cost.requests, cost.total_tokens], [100, 10, 2, 110]);
});

test('project prices override defaults; default rows price widely used models; unpriced models are named', async (t) => {
  const h = await buildTestApp(t);
  await writeCall(
    h,
    'c1',
    {
      'gpt-4o-mini': { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 },
      'no-such-model': { prompt_tokens: 5 },
    },
    '2025-01-01T00:00:00Z',
  );
  let [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  const dflt = call.summary.weave.costs['gpt-4o-mini'];
  assert.equal(dflt.pricing_level, 'default');
  assert.equal(dflt.pricing_level_id, 'default');
  assert.equal(dflt.created_by, 'system');
  assert.equal(dflt.provider_id, 'openai');
  assert.ok(Math.abs(dflt.prompt_tokens_total_cost - 0.15) < 1e-9);
  assert.ok(Math.abs(dflt.completion_tokens_total_cost - 0.6) < 1e-9);
  assert.equal(call.summary.weave.costs['no-such-model'], undefined);
  assert.deepEqual(call.summary.weave.unpriced_models, ['no-such-model']);
  // an older project row still beats a newer default row (project before default among rows in force)
  await createCost(h, {
    'gpt-4o-mini': { prompt_token_cost: 1e-6, completion_token_cost: 0, effective_date: '2020-01-01T00:00:00Z' },
  });
  [call] = await streamCalls(h);
  assert.ok(call !== undefined);
  assert.equal(call.summary.weave.costs['gpt-4o-mini'].pricing_level, 'project');
  assert.ok(Math.abs(call.summary.weave.costs['gpt-4o-mini'].prompt_tokens_total_cost - 1) < 1e-9);
});

test('include_costs and include_feedback on call/read and stream_query (with columns)', async (t) => {
  const h = await buildTestApp(t);
  await createCost(h, {
    m: { prompt_token_cost: 0.5, completion_token_cost: 1, effective_date: '2020-01-01T00:00:00Z' },
  });
  await writeCall(h, 'c1', { m: { prompt_tokens: 2, completion_tokens: 3 } });
  await writeCall(h, 'c2', {});
  const fb = await h.post('/feedback/create', {
    project_id: PROJECT,
    weave_ref: `weave:///${PROJECT}/call/c1`,
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍' },
    creator: 'me',
  });
  assert.equal(fb.statusCode, 200);
  const read = await h.post('/call/read', {
    project_id: PROJECT,
    id: 'c1',
    include_costs: true,
    include_feedback: true,
  });
  assert.equal(read.statusCode, 200, read.body);
  const weave = read.json().call.summary.weave;
  assert.equal(weave.costs.m.prompt_tokens_total_cost, 1);
  assert.equal(weave.costs.m.completion_tokens_total_cost, 3);
  assert.equal(weave.feedback.length, 1);
  assert.deepEqual(Object.keys(weave.feedback[0]).sort(), [
    'annotation_ref',
    'call_ref',
    'created_at',
    'creator',
    'feedback_type',
    'id',
    'payload',
    'runnable_ref',
    'trigger_ref',
    'wb_user_id',
    'weave_ref',
  ]);
  assert.equal(weave.feedback[0].payload.alias, ':thumbs_up:');
  assert.equal(weave.feedback[0].creator, 'me');
  const plain = (await h.post('/call/read', { project_id: PROJECT, id: 'c1' })).json().call.summary.weave;
  assert.equal(plain.costs, undefined);
  assert.equal(plain.feedback, undefined);
  const lines = await streamCalls(h, { include_feedback: true, columns: ['id'] });
  assert.deepEqual(
    lines.map((l) => [l.id, l.summary.weave.feedback.length]),
    [
      ['c1', 1],
      ['c2', 0],
    ],
  );
  assert.equal(lines[0]!.summary.weave.costs.m.prompt_tokens_total_cost, 1);
  assert.equal(lines[1]!.summary.weave.costs, undefined);
});

test('usage roll-ups carry costs from the price table', async (t) => {
  const h = await buildTestApp(t);
  await createCost(h, {
    m: { prompt_token_cost: 0.5, completion_token_cost: 1, effective_date: '2020-01-01T00:00:00Z' },
  });
  assert.equal((await h.post('/call/start', makeStart({ id: 'P', trace_id: 't' }))).statusCode, 200);
  assert.equal(
    (await h.post('/call/end', makeEnd('P', { summary: { usage: { m: { prompt_tokens: 2, completion_tokens: 1 } } } })))
      .statusCode,
    200,
  );
  assert.equal((await h.post('/call/start', makeStart({ id: 'C', trace_id: 't', parent_id: 'P' }))).statusCode, 200);
  assert.equal(
    (await h.post('/call/end', makeEnd('C', { summary: { usage: { m: { prompt_tokens: 4, completion_tokens: 3 } } } })))
      .statusCode,
    200,
  );
  const usage = (await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['P'], include_costs: true })).json();
  assert.equal(usage.call_usage.P.m.prompt_tokens_total_cost, 3);
  assert.equal(usage.call_usage.P.m.completion_tokens_total_cost, 4);
  assert.deepEqual(usage.unpriced_models, []);
  const traced = (await h.post('/trace/usage', { project_id: PROJECT, include_costs: true })).json();
  assert.equal(traced.call_usage.C.m.prompt_tokens_total_cost, 2);
  assert.equal(traced.call_usage.P.m.completion_tokens_total_cost, 4);
  const stats = (
    await h.post('/calls/stats', {
      project_id: PROJECT,
      start: '2025-01-01T10:00:00Z',
      end: '2025-01-01T11:00:00Z',
      granularity: 3600,
      usage_metrics: [{ metric: 'total_cost' }],
    })
  ).json();
  assert.equal(stats.usage_buckets[0].sum_total_cost, 7);
});

test('tenancy: bob cannot create, query or purge acme/demo prices (403), and its prices never price his calls', async (t) => {
  const h = await buildTestApp(t);
  const [costId] = (await createCost(h, { m: { prompt_token_cost: 1, completion_token_cost: 1 } }))[0]!;
  for (const [url, body] of [
    ['/cost/create', { project_id: PROJECT, costs: { m: { prompt_token_cost: 1, completion_token_cost: 1 } } }],
    ['/cost/query', { project_id: PROJECT }],
    ['/cost/purge', { project_id: PROJECT, query: byId(costId) }],
  ] as const) {
    assert.equal((await h.post(url, body, h.bobKey)).statusCode, 403, url);
  }
  assert.equal((await h.post('/cost/query', { project_id: PROJECT })).json().results.length, 1);
  assert.equal((await h.post('/cost/query', { project_id: 'other/p' }, h.bobKey)).json().results.length, 0);
  // purging by id in another project touches nothing here
  await h.post('/cost/purge', { project_id: 'other/p', query: byId(costId) }, h.bobKey);
  assert.equal((await h.post('/cost/query', { project_id: PROJECT })).json().results.length, 1);
});

test('usage roll-ups name the models without a price instead of passing 0.0 off as a price', async (t) => {
  const h = await buildTestApp(t);
  await createCost(h, {
    m: { prompt_token_cost: 1, completion_token_cost: 1, effective_date: '2020-01-01T00:00:00Z' },
  });
  await writeCall(h, 'c1', { m: { prompt_tokens: 1 }, 'no-price': { prompt_tokens: 10, completion_tokens: 2 } });
  const usage = (await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['c1'], include_costs: true })).json();
  assert.equal(usage.call_usage.c1.m.prompt_tokens_total_cost, 1);
  // §4.10 step 4 keeps 0.0 for the unpriced model; the list says it has no price
  assert.equal(usage.call_usage.c1['no-price'].prompt_tokens_total_cost, 0);
  assert.deepEqual(usage.unpriced_models, ['no-price']);
  const traced = (await h.post('/trace/usage', { project_id: PROJECT, include_costs: true })).json();
  assert.deepEqual(traced.unpriced_models, ['no-price']);
  const without = (await h.post('/calls/usage', { project_id: PROJECT, call_ids: ['c1'] })).json();
  assert.equal(without.unpriced_models, undefined);
  assert.equal(without.call_usage.c1['no-price'].prompt_tokens_total_cost, null);
});
