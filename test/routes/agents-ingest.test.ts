import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { TestApp } from '../helpers/app.js';
import {
  eqQuery,
  ok,
  sharedApp,
  S1,
  S2,
  S3,
  S4,
  sendAgents,
  VECTOR,
  vspan,
  VTRACE,
  type VSpan,
} from './agents-fixture.js';
import { attr, exportReq, sendOtel, toProtobuf, type Attr } from './otel-fixture.js';

/** docs/spec/agents.md §14 checklist items 1–22: ingest, extraction, relation to calls, live start. */

const app = sharedApp();
let h: TestApp;
beforeEach(() => {
  h = app();
});

let n = 0;
/** A fresh project of entity acme per test. */
const project = (): string => `acme/ingest-${++n}`;

async function spans(p: string, body: Record<string, unknown> = {}): Promise<any[]> {
  return (await ok(h, '/agents/spans/query', { project_id: p, include_details: true, ...body })).spans;
}

/** Ingests one span with `attributes` (and overrides) and returns its row. */
async function one(attributes: Attr[], s: Partial<VSpan> = {}, body: Record<string, unknown> = {}): Promise<any> {
  const p = project();
  const res = await sendAgents(h, [{ spanId: S1, name: 'span', startMs: 0, endMs: 10, attributes, ...s }], p);
  assert.equal(res.statusCode, 200, res.body);
  const rows = await spans(p, body);
  assert.equal(rows.length, 1);
  return rows[0];
}

test('1: the §2.8 vector is stored with its ids, operations and tokens', async () => {
  const p = project();
  const res = await sendAgents(h, VECTOR, p);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { partial_success: null });
  const rows = await spans(p, {
    query: eqQuery('trace_id', VTRACE),
    sort_by: [{ field: 'started_at', direction: 'asc' }],
  });
  assert.deepEqual(
    rows.map((r) => [r.span_id, r.operation_name, r.input_tokens, r.output_tokens, r.status_code]),
    [
      [S1, 'invoke_agent', 0, 0, 'OK'],
      [S2, 'chat', 50, 10, 'UNSET'],
      [S3, 'execute_tool', 0, 0, 'OK'],
      [S4, 'chat', 80, 12, 'UNSET'],
    ],
  );
  assert.equal(rows[2].tool_call_arguments, '{"city": "Lisbon"}');
  assert.deepEqual(rows[1].system_instructions, ['You are a travel assistant.']);
  assert.deepEqual(
    rows[3].input_messages.map((m: any) => m.role),
    ['user', 'assistant', 'tool'],
  );
  assert.equal(rows[0].ended_at, '2026-01-01T00:00:04Z');
});

test('2: the alias and gzip-compressed protobuf give identical rows; corrupt gzip 400, text/plain 415', async () => {
  const [a, b, c] = [project(), project(), project()];
  await sendAgents(h, VECTOR, a);
  assert.equal((await sendAgents(h, VECTOR, b, { url: '/otel/v1/genai/traces' })).statusCode, 200);
  const pb = toProtobuf(exportReq(VECTOR.map(vspan), c));
  const gz = await sendOtel(h, gzipSync(pb), {
    url: '/agents/otel/v1/traces',
    headers: { 'content-encoding': 'gzip' },
  });
  assert.equal(gz.statusCode, 200, gz.body);
  const strip = (rows: any[]) =>
    rows.map((r) => ({ ...r, project_id: '', raw_span_dump: JSON.parse(r.raw_span_dump).attributes }));
  const want = strip(await spans(a));
  assert.deepEqual(strip(await spans(b)), want);
  assert.deepEqual(strip(await spans(c)), want);
  const corrupt = await sendOtel(h, Buffer.from('not gzip'), {
    url: '/agents/otel/v1/traces',
    contentType: 'application/x-protobuf',
    headers: { 'content-encoding': 'gzip' },
  });
  assert.equal(corrupt.statusCode, 400);
  const text = await sendOtel(h, 'hello', { url: '/agents/otel/v1/traces', contentType: 'text/plain' });
  assert.equal(text.statusCode, 415);
});

test('3: weave.agent.name wins over gen_ai.agent.name; gen_ai alone is used', async () => {
  assert.equal((await one([attr('weave.agent.name', 'a'), attr('gen_ai.agent.name', 'b')])).agent_name, 'a');
  assert.equal((await one([attr('gen_ai.agent.name', 'b')])).agent_name, 'b');
});

test('4: a span named `invoke_agent planner` gives agent and operation', async () => {
  const row = await one([], { name: 'invoke_agent planner' });
  assert.deepEqual([row.agent_name, row.operation_name], ['planner', 'invoke_agent']);
});

test('5: provider names are lowercased, gen_ai.system is a fallback', async () => {
  assert.equal((await one([attr('gen_ai.provider.name', 'OpenAI')])).provider_name, 'openai');
  assert.equal((await one([attr('gen_ai.system', 'Anthropic')])).provider_name, 'anthropic');
});

test('6: token counts from a numeric string and a double (truncated)', async () => {
  const tokens = (value: unknown) => [{ key: 'gen_ai.usage.input_tokens', value }] as Attr[];
  assert.equal((await one(tokens({ stringValue: '120' }))).input_tokens, 120);
  assert.equal((await one(tokens({ doubleValue: 7.9 }))).input_tokens, 7);
});

test('a number no column can hold is stored as the nearest one it can (no 500 on either store)', async () => {
  const row = await one([
    { key: 'gen_ai.usage.input_tokens', value: { doubleValue: 1e30 } },
    { key: 'gen_ai.usage.output_tokens', value: { stringValue: '99999999999999999999999' } },
    { key: 'gen_ai.request.temperature', value: { doubleValue: 'NaN' } },
    { key: 'app.ratio', value: { doubleValue: 'Infinity' } },
  ]);
  assert.equal(row.input_tokens, Number.MAX_SAFE_INTEGER);
  assert.ok(Number.isSafeInteger(row.output_tokens), String(row.output_tokens));
  assert.equal(row.request_temperature, 0);
});

test('7: messages with parts keep the parts as compact JSON; an output without role is assistant', async () => {
  const parts = [{ type: 'text', content: 'hi there' }];
  const row = await one([
    attr('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts }])),
    attr('gen_ai.output.messages', JSON.stringify([{ parts }])),
  ]);
  assert.deepEqual(row.input_messages[0], { role: 'user', content: JSON.stringify(parts), finish_reason: '' });
  assert.equal(row.output_messages[0].role, 'assistant');
});

test('8: a plain-text input is one user message', async () => {
  const row = await one([attr('gen_ai.input.messages', 'hello')]);
  assert.deepEqual(row.input_messages, [{ role: 'user', content: 'hello', finish_reason: '' }]);
});

test('9: the indexed gen_ai.prompt form is a message list and also a custom attribute', async () => {
  const row = await one(
    [attr('gen_ai.prompt.0.role', 'user'), attr('gen_ai.prompt.0.content', 'hi')],
    {},
    {
      custom_attr_columns: [{ source: 'custom_attrs_string', key: 'gen_ai.prompt.0.content' }],
    },
  );
  assert.deepEqual(row.input_messages, [{ role: 'user', content: 'hi', finish_reason: '' }]);
  assert.deepEqual(row.custom_attrs_string, { 'gen_ai.prompt.0.content': 'hi' });
});

test('10: reasoning parts fill reasoning_content; the stored output keeps both parts', async () => {
  const parts = [
    { type: 'reasoning', content: 'Let me think' },
    { type: 'text', content: 'Done.' },
  ];
  const row = await one([attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts }]))]);
  assert.equal(row.reasoning_content, 'Let me think');
  assert.equal(row.output_messages[0].content, JSON.stringify(parts));
});

test('11: system instructions from content, text and plain strings', async () => {
  const row = await one([attr('gen_ai.system_instructions', JSON.stringify([{ content: 'a' }, { text: 'b' }, 'c']))]);
  assert.deepEqual(row.system_instructions, ['a', 'b', 'c']);
});

test('12: tool arguments are kept verbatim; an event gen_ai.tool.input is the fallback', async () => {
  assert.equal(
    (await one([attr('gen_ai.tool.call.arguments', '{"city": "Paris"}')])).tool_call_arguments,
    '{"city": "Paris"}',
  );
  const event = {
    name: 'gen_ai.tool.input',
    timeUnixNano: '1767225600000000000',
    attributes: [attr('gen_ai.tool.call.arguments', '{"q": 1}')],
  };
  assert.equal((await one([], { events: [event] })).tool_call_arguments, '{"q": 1}');
});

test('13: custom attributes go to their typed maps; empty strings and known keys never do', async () => {
  const columns = ['x.s', 'x.i', 'x.f', 'x.b', 'x.e'].flatMap((key) =>
    ['custom_attrs_string', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_bool'].map((source) => ({
      source,
      key,
    })),
  );
  const row = await one(
    [
      attr('x.s', 'v'),
      attr('x.i', 3),
      attr('x.f', 1.5),
      attr('x.b', true),
      attr('x.e', ''),
      attr('gen_ai.agent.name', 'known'),
    ],
    {},
    { custom_attr_columns: [...columns, { source: 'custom_attrs_string', key: 'gen_ai.agent.name' }] },
  );
  assert.deepEqual(
    [row.custom_attrs_string, row.custom_attrs_int, row.custom_attrs_float, row.custom_attrs_bool],
    [{ 'x.s': 'v' }, { 'x.i': 3 }, { 'x.f': 1.5 }, { 'x.b': true }],
  );
});

test('14: at most 1024 custom attributes per span', async () => {
  const p = project();
  const attributes = Array.from({ length: 1500 }, (_, i) => attr(`k${String(i).padStart(4, '0')}`, 'v'));
  await sendAgents(h, [{ spanId: S1, name: 's', startMs: 0, endMs: 1, attributes }], p);
  const schema = await ok(h, '/agents/spans/custom-attrs/schema', { project_id: p, limit: 2000 });
  assert.equal(schema.attributes.length, 1024);
  assert.equal(schema.has_more, false);
});

test('15: a path-conflicting span is rejected alone, its message names the key', async () => {
  const p = project();
  const res = await sendAgents(
    h,
    [
      { spanId: S1, name: 'ok', startMs: 0, endMs: 1, attributes: [attr('a', 'b')] },
      { spanId: S2, name: 'bad', startMs: 0, endMs: 1, attributes: [attr('x', 'v'), attr('x.y', 'w')] },
    ],
    p,
  );
  assert.equal(res.statusCode, 200);
  const partial = res.json().partial_success;
  assert.equal(partial.rejected_spans, 1);
  assert.match(partial.error_message, /^Invalid attribute structure: .*'x/);
  assert.deepEqual(
    (await spans(p)).map((r) => r.span_id),
    [S1],
  );
});

test('16: error status, message and error.type', async () => {
  const row = await one([attr('error.type', 'RateLimitError')], { status: { code: 2, message: 'rate limited' } });
  assert.deepEqual([row.status_code, row.status_message, row.error_type], ['ERROR', 'rate limited', 'RateLimitError']);
});

test('17: a re-export replaces the row', async () => {
  const p = project();
  await sendAgents(
    h,
    [{ spanId: S1, name: 's', startMs: 0, endMs: 1, attributes: [attr('gen_ai.agent.name', 'a')] }],
    p,
  );
  await sendAgents(
    h,
    [{ spanId: S1, name: 's', startMs: 0, endMs: 1, attributes: [attr('gen_ai.agent.name', 'b')] }],
    p,
  );
  const rows = await spans(p);
  assert.deepEqual(
    rows.map((r) => r.agent_name),
    ['b'],
  );
});

test('17: re-exports of one span sent at once all succeed; one of them is what is stored, whole', async () => {
  const p = project();
  const exportOf = (i: number): VSpan => ({
    spanId: S1,
    name: 's',
    startMs: 0,
    endMs: 1,
    attributes: [attr('gen_ai.agent.name', `agent-${i}`), attr('input.value.a', `v${i}`), attr('custom.n', i)],
  });
  const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => sendAgents(h, [exportOf(i)], p)));
  for (const res of answers) assert.equal(res.statusCode, 200, res.body);
  const rows = await spans(p, {
    custom_attr_columns: [
      { source: 'custom_attrs_string', key: 'input.value.a' },
      { source: 'custom_attrs_int', key: 'custom.n' },
    ],
  });
  assert.equal(rows.length, 1);
  // the agent name and the custom attributes come from the same export
  const i = Number(/^agent-(\d)$/.exec(rows[0].agent_name)?.[1]);
  assert.ok(Number.isInteger(i), rows[0].agent_name);
  assert.deepEqual(
    [rows[0].custom_attrs_string, rows[0].custom_attrs_int],
    [{ 'input.value.a': `v${i}` }, { 'custom.n': i }],
  );
});

test('18: an open span has ended_at null and adds no duration to its agent', async () => {
  const p = project();
  await sendAgents(
    h,
    [{ spanId: S1, name: 's', startMs: 0, endMs: null, attributes: [attr('gen_ai.agent.name', 'a')] }],
    p,
  );
  assert.equal((await spans(p))[0].ended_at, null);
  const agents = await ok(h, '/agents/query', { project_id: p });
  assert.equal(agents.agents[0].total_duration_ms, 0);
});

test('19: agent spans are calls too, except those linked to a parent call', async () => {
  const p = project();
  const linked: VSpan = {
    spanId: 'aaaaaaaaaaaaaaaa',
    name: 'linked',
    startMs: 0,
    endMs: 1,
    attributes: [attr('weave.parent_call.id', 'op-call')],
  };
  await sendAgents(h, [...VECTOR, linked], p);
  for (const s of VECTOR) {
    const call = (await ok(h, '/call/read', { project_id: p, id: s.spanId })).call;
    assert.equal(call?.id, s.spanId);
  }
  assert.equal((await ok(h, '/call/read', { project_id: p, id: linked.spanId })).call, null);
  assert.equal((await spans(p)).length, 5);
});

test('20: /otel/v1/traces stores GenAI spans as agent spans too, plain HTTP spans not', async () => {
  const p = project();
  const req = exportReq(
    [
      vspan({ spanId: S1, name: 'llm', startMs: 0, endMs: 1, attributes: [attr('gen_ai.operation.name', 'chat')] }),
      vspan({ spanId: S2, name: 'http', startMs: 0, endMs: 1, attributes: [attr('http.method', 'GET')] }),
    ],
    p,
  );
  assert.equal((await sendOtel(h, req)).statusCode, 200);
  assert.deepEqual(
    (await spans(p)).map((r) => [r.span_id, r.operation_name]),
    [[S1, 'chat']],
  );
});

test('21: /calls/delete removes the agent span made from the call', async () => {
  const p = project();
  await sendAgents(h, VECTOR, p);
  const del = await h.post('/calls/delete', { project_id: p, call_ids: [S3] });
  assert.equal(del.statusCode, 200, del.body);
  const ids = (await spans(p)).map((r) => r.span_id);
  assert.ok(!ids.includes(S3));
  assert.equal(ids.length, 3);
});

test('22: a live start shows an open span until the export replaces it; missing span_id 422', async () => {
  const p = project();
  const start = { project_id: p, trace_id: VTRACE, span_id: S1, operation_name: 'invoke_agent', agent_name: 'a' };
  await ok(h, '/otel/v1/genai/span/start', { ...start, request_model: 'm', started_at: '2026-01-01T00:00:00Z' });
  let rows = await spans(p);
  assert.deepEqual(
    rows.map((r) => [r.ended_at, r.status_code, r.operation_name, r.agent_name, r.request_model]),
    [[null, 'UNSET', 'invoke_agent', 'a', 'm']],
  );
  assert.equal((await ok(h, '/call/read', { project_id: p, id: S1 })).call, null);
  await sendAgents(h, [VECTOR[0]!], p);
  await ok(h, '/otel/v1/genai/span/start', { ...start, agent_name: 'changed' });
  rows = await spans(p);
  assert.deepEqual(
    rows.map((r) => [r.ended_at, r.agent_name]),
    [['2026-01-01T00:00:04Z', 'trip_planner']],
  );
  const missing = await h.post('/otel/v1/genai/span/start', { project_id: p, trace_id: VTRACE });
  assert.equal(missing.statusCode, 422);
  const bad = await h.post('/otel/v1/genai/span/start', { ...start, span_id: S2, started_at: 'yesterday' });
  assert.equal(bad.statusCode, 422);
});

test('tenancy: another entity never reads these spans, and cannot write them', async () => {
  const p = project();
  await sendAgents(h, VECTOR, p);
  for (const url of ['/agents/spans/query', '/agents/query', '/agents/search']) {
    const res = await h.post(url, { project_id: p }, h.bobKey);
    assert.equal(res.statusCode, 403, url);
  }
  const chat = await h.post('/agents/traces/chat', { project_id: p, trace_id: VTRACE }, h.bobKey);
  assert.equal(chat.statusCode, 403);
  const write = await sendAgents(h, VECTOR, p, { key: h.bobKey });
  assert.equal(write.statusCode, 403);
  // bob's own project with the same ids holds nothing of acme's
  await sendAgents(h, VECTOR, 'other/mine', { key: h.bobKey });
  const own = await h.post('/agents/spans/query', { project_id: 'other/mine' }, h.bobKey);
  assert.equal(own.json().total_count, 4);
  assert.ok(own.json().spans.every((s: any) => s.project_id === 'other/mine'));
  assert.equal((await spans(p)).length, 4);
});
