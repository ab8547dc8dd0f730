import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { eqQuery, ok, S1, S2, S3, S4, sendAgents, sharedApp, VECTOR, VTRACE, type VSpan } from './agents-fixture.js';
import { attr } from './otel-fixture.js';

/** docs/spec/agents.md §14 checklist items 23–29, 35, 37 (spans), 47–49 (agents), 50–55 (search), 66, 68. */

const app = sharedApp();
let h: TestApp;
beforeEach(() => {
  h = app();
});

let n = 0;
const project = (): string => `acme/reads-${++n}`;

async function vector(): Promise<string> {
  const p = project();
  const res = await sendAgents(h, VECTOR, p);
  assert.equal(res.statusCode, 200, res.body);
  return p;
}

const query = (p: string, body: Record<string, unknown> = {}) =>
  ok(h, '/agents/spans/query', { project_id: p, ...body });
const status = async (url: string, body: unknown) => (await h.post(url, body)).statusCode;

test('23: default order started_at desc, paging, total_count, limit 0', async () => {
  const p = await vector();
  assert.deepEqual(
    (await query(p)).spans.map((s: any) => s.span_id),
    [S4, S3, S2, S1],
  );
  const page = await query(p, { limit: 2, offset: 2 });
  assert.deepEqual(
    page.spans.map((s: any) => s.span_id),
    [S2, S1],
  );
  assert.equal(page.total_count, 4);
  assert.deepEqual(await query(p, { limit: 0 }), { spans: [], groups: [], total_count: 4 });
});

test('24: limit and offset bounds are 422', async () => {
  const p = project();
  assert.equal(await status('/agents/spans/query', { project_id: p, limit: 10001 }), 422);
  assert.equal(await status('/agents/spans/query', { project_id: p, offset: -1 }), 422);
});

test('25: agent.name, gen_ai.agent.name and agent_name filter the attributed rows alike', async () => {
  const p = await vector();
  for (const field of ['agent.name', 'gen_ai.agent.name', 'agent_name']) {
    const rows = (await query(p, { query: eqQuery(field, 'trip_planner') })).spans;
    assert.equal(rows.length, 4, field);
    assert.ok(rows.every((r: any) => r.agent_name === 'trip_planner' && r.conversation_id === 'conv-42'));
  }
});

test('26: custom attributes in filters; an unresolvable field comparison is 400', async () => {
  const p = project();
  const spans: VSpan[] = [
    { spanId: S1, name: 'a', startMs: 0, endMs: 1, attributes: [attr('retries', 3), attr('env', 'prod')] },
    { spanId: S2, name: 'b', startMs: 1, endMs: 2, attributes: [attr('retries', 4), attr('env', 'dev')] },
  ];
  await sendAgents(h, spans, p);
  const ids = async (q: unknown) => (await query(p, { query: q })).spans.map((s: any) => s.span_id);
  assert.deepEqual(await ids(eqQuery('retries', 3)), [S1]);
  assert.deepEqual(await ids(eqQuery('custom_attrs_string.env', 'prod')), [S1]);
  const fieldVsField = { $expr: { $eq: [{ $getField: 'nope' }, { $getField: 'other' }] } };
  assert.equal(await status('/agents/spans/query', { project_id: p, query: fieldVsField }), 400);
});

test('27: sort fields: aliases refused, tokens ascending, custom columns', async () => {
  const p = await vector();
  assert.equal(await status('/agents/spans/query', { project_id: p, sort_by: [{ field: 'agent.name' }] }), 400);
  const asc = await query(p, { sort_by: [{ field: 'input_tokens', direction: 'asc' }] });
  assert.deepEqual(
    asc.spans.map((s: any) => s.input_tokens),
    [0, 0, 50, 80],
  );
  const q = await ok(h, '/agents/spans/query', {
    project_id: p,
    custom_attr_columns: [{ source: 'custom_attrs_string', key: 'app.tenant' }],
    sort_by: [{ field: 'custom_attrs_string.app.tenant', direction: 'asc' }],
  });
  assert.equal(q.spans[0].span_id, S1);
});

test('28: details only with include_details', async () => {
  const p = await vector();
  const plain = (await query(p, { query: eqQuery('span_id', S1) })).spans[0];
  assert.deepEqual([plain.input_messages, plain.raw_span_dump], [[], null]);
  const full = (await query(p, { query: eqQuery('span_id', S1), include_details: true })).spans[0];
  assert.equal(full.input_messages.length, 1);
  assert.equal(JSON.parse(full.raw_span_dump).context.span_id, S1);
});

test('29: body-model rules of grouped queries are 422', async () => {
  const p = project();
  const group_by = [{ key: 'agent_name' }];
  assert.equal(await status('/agents/spans/query', { project_id: p, group_by, include_details: true }), 422);
  assert.equal(
    await status('/agents/spans/query', { project_id: p, measures: [{ alias: 'n', aggregation: 'count' }] }),
    422,
  );
  assert.equal(
    await status('/agents/spans/query', {
      project_id: p,
      group_by,
      measures: [{ alias: 'span_count', aggregation: 'count' }],
    }),
    422,
  );
});

test('35: started_after is inclusive, started_before exclusive', async () => {
  const p = await vector();
  const rows = await query(p, {
    started_after: '2026-01-01T00:00:00.100Z',
    started_before: '2026-01-01T00:00:01.600Z',
    sort_by: [{ field: 'started_at', direction: 'asc' }],
  });
  assert.deepEqual(
    rows.spans.map((s: any) => s.span_id),
    [S2, S3],
  );
});

test('37: the custom-attribute schema counts spans per key; has_more; limit 0 is 422', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      { spanId: S1, name: 'a', startMs: 0, endMs: 1, attributes: [attr('x.s', 'a')] },
      { spanId: S2, name: 'b', startMs: 0, endMs: 1, attributes: [attr('x.s', 'b')] },
      { spanId: S3, name: 'c', startMs: 0, endMs: 1, attributes: [attr('x.i', 1)] },
    ],
    p,
  );
  const all = await ok(h, '/agents/spans/custom-attrs/schema', { project_id: p });
  assert.deepEqual(all.attributes, [
    { source: 'custom_attrs_string', key: 'x.s', value_type: 'string', span_count: 2 },
    { source: 'custom_attrs_int', key: 'x.i', value_type: 'int', span_count: 1 },
  ]);
  const first = await ok(h, '/agents/spans/custom-attrs/schema', { project_id: p, limit: 1 });
  assert.deepEqual([first.attributes.length, first.has_more], [1, true]);
  assert.equal(await status('/agents/spans/custom-attrs/schema', { project_id: p, limit: 0 }), 422);
});

const agentSpan = (spanId: string, agent: string, startMs: number, extra: ReturnType<typeof attr>[] = []): VSpan => ({
  spanId,
  name: `invoke_agent ${agent}`,
  startMs,
  endMs: startMs + 10,
  attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('gen_ai.agent.name', agent), ...extra],
  traceId: `${spanId}${spanId}`,
});

test('47: agents roll up raw rows; a filter; an unsortable field is 400', async () => {
  const p = await vector();
  const res = await ok(h, '/agents/query', { project_id: p });
  assert.equal(res.total_count, 1);
  const a = res.agents[0];
  assert.deepEqual([a.agent_name, a.invocation_count, a.span_count, a.total_input_tokens], ['trip_planner', 1, 1, 0]);
  assert.deepEqual(await ok(h, '/agents/query', { project_id: p, filters: { agent_name: 'nope' } }), {
    agents: [],
    total_count: 0,
  });
  assert.equal(await status('/agents/query', { project_id: p, sort_by: [{ field: 'total_output_tokens' }] }), 400);
});

test('48: agents newest last_seen first; sort_by reorders', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      agentSpan('1111111111111111', 'B', 0),
      agentSpan('2222222222222222', 'B', 5),
      agentSpan('3333333333333333', 'A', 50),
    ],
    p,
  );
  const names = async (body: Record<string, unknown>) =>
    (await ok(h, '/agents/query', { project_id: p, ...body })).agents.map((a: any) => a.agent_name);
  assert.deepEqual(await names({}), ['A', 'B']);
  assert.deepEqual(await names({ sort_by: [{ field: 'span_count', direction: 'asc' }] }), ['A', 'B']);
  assert.deepEqual(await names({ sort_by: [{ field: 'span_count', direction: 'desc' }] }), ['B', 'A']);
});

test('49: agent versions, the empty one included; missing agent_name is 422', async () => {
  const p = project();
  const v = (version: string) => [attr('gen_ai.agent.version', version)];
  await sendAgents(
    h,
    [
      agentSpan('1111111111111111', 'A', 0, v('1.0')),
      agentSpan('2222222222222222', 'A', 10, v('2.0')),
      agentSpan('3333333333333333', 'A', 20),
    ],
    p,
  );
  const res = await ok(h, '/agents/agent-versions/query', { project_id: p, agent_name: 'A' });
  assert.deepEqual(
    res.versions.map((r: any) => r.agent_version),
    ['', '2.0', '1.0'],
  );
  assert.equal(res.total_count, 3);
  assert.equal(await status('/agents/agent-versions/query', { project_id: p }), 422);
});

const search = (p: string, body: Record<string, unknown>) => ok(h, '/agents/search', { project_id: p, ...body });
const hits = (res: any): any[] => res.results.flatMap((r: any) => r.matched_messages);

test('50: search is a case-sensitive literal substring', async () => {
  const p = await vector();
  assert.ok(hits(await search(p, { query: 'Lisbon' })).length > 0);
  assert.equal(hits(await search(p, { query: 'lisbon' })).length, 0);
  await sendAgents(
    h,
    [
      {
        spanId: 'aaaaaaaaaaaaaaaa',
        name: 'x',
        startMs: 0,
        endMs: 1,
        attributes: [attr('gen_ai.input.messages', 'a%b')],
        traceId: 'a'.repeat(32),
      },
      {
        spanId: 'bbbbbbbbbbbbbbbb',
        name: 'x',
        startMs: 0,
        endMs: 1,
        attributes: [attr('gen_ai.input.messages', 'aXXb')],
        traceId: 'b'.repeat(32),
      },
    ],
    p,
  );
  assert.deepEqual(
    hits(await search(p, { query: 'a%b' })).map((m) => m.span_id),
    ['aaaaaaaaaaaaaaaa'],
  );
});

test('51: roles filter: tool means tool calls and results; system with an empty query', async () => {
  const p = await vector();
  const tool = hits(await search(p, { roles: ['tool'] }));
  assert.deepEqual(tool.map((m) => [m.span_id, m.role]).sort(), [
    [S3, 'tool_call'],
    [S3, 'tool_result'],
  ]);
  const system = hits(await search(p, { query: '', roles: ['system'] }));
  assert.deepEqual(system.map((m) => m.span_id).sort(), [S2, S4].sort());
});

test('52: hits grouped by attributed conversation, else __NO_CONVERSATION__', async () => {
  const p = await vector();
  await sendAgents(
    h,
    [
      {
        spanId: 'aaaaaaaaaaaaaaaa',
        name: 'x',
        startMs: 9000,
        endMs: 9001,
        attributes: [attr('gen_ai.input.messages', 'Lisbon again')],
        traceId: 'a'.repeat(32),
      },
    ],
    p,
  );
  const res = await search(p, { query: 'Lisbon' });
  assert.deepEqual(
    res.results.map((r: any) => r.conversation_id),
    ['__NO_CONVERSATION__', 'conv-42'],
  );
  assert.equal(res.total_conversations, res.results.length);
});

test('53: previews of 500 code points unless truncate_content is false; equal contents equal digests', async () => {
  const p = project();
  const long = 'x'.repeat(699) + 'é';
  const spans: VSpan[] = ['1111111111111111', '2222222222222222'].map((spanId, i) => ({
    spanId,
    name: 'x',
    startMs: i,
    endMs: i + 1,
    attributes: [attr('gen_ai.input.messages', long)],
    traceId: spanId.repeat(2),
  }));
  await sendAgents(h, spans, p);
  const cut = hits(await search(p, { query: 'xxx' }));
  assert.equal(cut[0].content_preview.length, 500);
  const full = hits(await search(p, { query: 'xxx', truncate_content: false }));
  assert.equal(full[0].content_preview, long);
  assert.equal(full.length, 2);
  assert.match(full[0].content_digest, /^[0-9a-f]{32}$/);
  assert.equal(full[0].content_digest, full[1].content_digest);
});

test('54: a non-empty query collapses replays to the newest; an empty one returns every occurrence', async () => {
  const p = await vector();
  const weather = hits(await search(p, { query: 'Weather' }));
  assert.deepEqual(
    weather.map((m) => m.span_id),
    [S4],
  );
  const every = hits(await search(p, { query: '', trace_id: VTRACE, limit: 100 }));
  // S1: input, output; S2: output, input, system; S3: arguments, result; S4: output, 3 inputs, system
  assert.equal(every.length, 12);
});

test('55: search limit bound 422, default page 20', async () => {
  const p = project();
  assert.equal(await status('/agents/search', { project_id: p, limit: 1001 }), 422);
  const spans: VSpan[] = Array.from({ length: 25 }, (_, i) => ({
    spanId: (1000 + i).toString(16).padStart(16, '0'),
    name: 'x',
    startMs: i,
    endMs: i + 1,
    attributes: [attr('gen_ai.input.messages', `message ${i}`)],
    traceId: (1000 + i).toString(16).padStart(32, '0'),
  }));
  await sendAgents(h, spans, p);
  assert.equal(hits(await search(p, { query: 'message' })).length, 20);
});

test('66: conversation spans: own conversation only, request order, naive bound 422', async () => {
  const p = await vector();
  const res = await ok(h, '/agents/conversations/spans', { project_id: p, conversation_ids: ['conv-42', 'unknown'] });
  assert.deepEqual(res.conversations, [
    {
      conversation_id: 'conv-42',
      spans: [{ operation_name: 'invoke_agent', trace_id: VTRACE, span_id: S1, status: 'OK', duration_ms: 4000 }],
      spans_feedback: [],
    },
    { conversation_id: 'unknown', spans: [], spans_feedback: [] },
  ]);
  const naive = { project_id: p, conversation_ids: ['conv-42'], started_after: '2026-01-01T00:00:00' };
  assert.equal(await status('/agents/conversations/spans', naive), 422);
});

test('68: diagnostics: cache tokens above input are a finding; unknown span not_found', async () => {
  const p = project();
  const usage = [
    attr('gen_ai.usage.input_tokens', 100),
    attr('gen_ai.usage.cache_read.input_tokens', 90),
    attr('gen_ai.usage.cache_creation.input_tokens', 20),
  ];
  await sendAgents(h, [{ spanId: S1, name: 'chat', startMs: 0, endMs: 1, attributes: usage }], p);
  const res = await ok(h, '/agents/spans/diagnostics', { project_id: p, trace_id: VTRACE, span_id: S1 });
  assert.equal(res.status, 'evaluated');
  assert.deepEqual(
    res.findings.map((f: any) => [f.code, f.excess_tokens]),
    [['cache_tokens_exceed_input', 10]],
  );
  assert.deepEqual(await ok(h, '/agents/spans/diagnostics', { project_id: p, trace_id: VTRACE, span_id: S2 }), {
    status: 'not_found',
  });
});

test('36: include_costs prices spans by their model; unpriced spans are null; chat costs too', async () => {
  const p = await vector();
  // effective before the spans started (§12 picks the row in force at the span's start, then project rows first)
  const price = { prompt_token_cost: 0.001, completion_token_cost: 0.002, effective_date: '2025-06-01T00:00:00Z' };
  const costs = { 'gpt-4o-mini-2024-07-18': price };
  const created = await h.post('/cost/create', { project_id: p, costs });
  assert.equal(created.statusCode, 200, created.body);
  const rows = (await query(p, { include_costs: true })).spans;
  const s4 = rows.find((r: any) => r.span_id === S4);
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} vs ${b}`);
  close(s4.input_cost_usd, 0.08);
  close(s4.output_cost_usd, 0.024);
  close(s4.total_cost_usd, 0.104);
  const s3 = rows.find((r: any) => r.span_id === S3);
  assert.deepEqual([s3.input_cost_usd, s3.total_cost_usd], [null, null]);
  assert.equal((await query(p)).spans[0].total_cost_usd, null, 'only with include_costs');
  const chat = await ok(h, '/agents/traces/chat', { project_id: p, trace_id: VTRACE });
  close(chat.total_cost_usd, 0.104 + 0.05 + 0.02);
  close(chat.messages.at(-1).assistant_message.total_cost_usd, 0.104);
});

test('67: agent feedback on a turn is a marker of its conversation, skin tones removed', async () => {
  const p = await vector();
  const fb = await h.post('/feedback/create', {
    project_id: p,
    weave_ref: `weave:///${p}/agent_turn/${VTRACE}`,
    feedback_type: 'wandb.agent_user_feedback',
    payload: {},
    scorer_tags: ['👍🏽'],
  });
  assert.equal(fb.statusCode, 200, fb.body);
  const res = await ok(h, '/agents/conversations/spans', { project_id: p, conversation_ids: ['conv-42'] });
  assert.deepEqual(res.conversations[0].spans_feedback, [
    { trace_id: VTRACE, feedback_type: 'wandb.agent_user_feedback', tags: ['👍'], ratings: [] },
  ]);
});

test('filters comparing a column with a literal of another type are 400', async () => {
  const p = await vector();
  for (const q of [
    { $expr: { $eq: [{ $getField: 'agent_name' }, { $literal: false }] } },
    { $expr: { $gt: [{ $getField: 'input_tokens' }, { $literal: 'many' }] } },
    { $expr: { $contains: { input: { $getField: 'input_tokens' }, substr: { $literal: '1' } } } },
  ])
    assert.equal(await status('/agents/spans/query', { project_id: p, query: q }), 400, JSON.stringify(q));
});

test('a literal or field where a condition belongs: booleans filter, anything else is 400', async () => {
  const p = project();
  const spans: VSpan[] = [
    { spanId: S1, name: 'a', startMs: 0, endMs: 1, attributes: [attr('flagged', true)] },
    { spanId: S2, name: 'b', startMs: 1, endMs: 2, attributes: [attr('flagged', false)] },
  ];
  await sendAgents(h, spans, p);
  const ids = async (q: unknown) => (await query(p, { query: q })).spans.map((s: any) => s.span_id).sort();
  assert.deepEqual(await ids({ $expr: { $and: [{ $literal: true }] } }), [S1, S2].sort());
  assert.deepEqual(await ids({ $expr: { $or: [{ $literal: false }] } }), []);
  assert.deepEqual(await ids({ $expr: { $and: [{ $getField: 'custom_attrs_bool.flagged' }] } }), [S1]);
  assert.deepEqual(await ids({ $expr: { $not: [{ $getField: 'custom_attrs_bool.flagged' }] } }), [S2]);
  // a condition used as a value is a boolean too
  const isTrue = { $eq: [{ $literal: 1 }, { $literal: 1 }] };
  assert.deepEqual(await ids({ $expr: { $eq: [{ $getField: 'custom_attrs_bool.flagged' }, isTrue] } }), [S1]);
  for (const q of [
    { $expr: { $and: [{ $literal: 2147483634 }] } },
    { $expr: { $or: [{ $literal: 'yes' }] } },
    { $expr: { $not: [{ $getField: 'agent_name' }] } },
    { $expr: { $and: [{ $or: [{ $literal: false }] }, { $getField: 'input_tokens' }] } },
  ]) {
    for (const url of ['/agents/spans/query', '/agents/spans/custom-attrs/schema'])
      assert.equal(await status(url, { project_id: p, query: q }), 400, `${url} ${JSON.stringify(q)}`);
  }
});
