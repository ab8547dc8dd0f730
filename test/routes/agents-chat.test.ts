import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { TestApp } from '../helpers/app.js';
import { ok, S1, S2, S3, S4, sendAgents, sharedApp, VECTOR, VTRACE, type VSpan } from './agents-fixture.js';
import { attr, type Attr } from './otel-fixture.js';

/** docs/spec/agents.md §14 checklist items 56–64: the chat projection of a trace and of a conversation. */

const app = sharedApp();
let h: TestApp;
beforeEach(() => {
  h = app();
});

let n = 0;
const project = (): string => `acme/chat-${++n}`;

const chat = (p: string, traceId = VTRACE) => ok(h, '/agents/traces/chat', { project_id: p, trace_id: traceId });
const out = (text: string) => attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', content: text }]));
const op = (name: string) => attr('gen_ai.operation.name', name);
const span = (
  spanId: string,
  parent: string | undefined,
  startMs: number,
  attributes: Attr[],
  extra: Partial<VSpan> = {},
): VSpan => ({
  spanId,
  parentSpanId: parent,
  name: 'span',
  startMs,
  endMs: startMs + 100,
  attributes,
  ...extra,
});

test('56: the §2.8 vector projects to the four messages and header of §9.4', async () => {
  const p = project();
  await sendAgents(h, VECTOR, p);
  const res = await chat(p);
  const m = res.messages;
  assert.deepEqual(
    m.map((x: any) => [x.type, x.span_id, x.agent_name]),
    [
      ['user_message', null, 'User'],
      ['agent_start', S1, 'trip_planner'],
      ['tool_call', S3, 'trip_planner'],
      ['assistant_message', S4, 'trip_planner'],
    ],
  );
  assert.equal(m[0].user_message.text, 'Weather in Lisbon?');
  assert.equal(m[0].started_at, '2026-01-01T00:00:00.100000Z');
  assert.equal(m[0].assistant_message, null);
  assert.deepEqual(m[1].agent_start, {
    model: 'gpt-4o-mini',
    system_instructions: 'You are a travel assistant.',
    tool_definitions: null,
    status: 'OK',
  });
  assert.equal(m[1].agent_version, '1.2.0');
  assert.deepEqual(m[2].tool_call, {
    tool_name: 'get_weather',
    tool_arguments: '{"city": "Lisbon"}',
    tool_result: '{"temp_c":24,"sky":"sunny"}',
    duration_ms: 300,
    status: 'OK',
    content_refs: [],
  });
  const a = m[3].assistant_message;
  assert.deepEqual(
    [a.text, a.model, a.input_tokens, a.output_tokens, a.reasoning_tokens, a.duration_ms, a.status],
    ['Sunny, 24°C.', 'gpt-4o-mini-2024-07-18', 80, 12, 0, 2300, 'UNSET'],
  );
  assert.deepEqual(
    [res.root_span_name, res.provider, res.status_code, res.total_duration_ms, res.total_input_tokens],
    ['trip_planner', 'openai', 'OK', 4000, 130],
  );
  assert.equal(res.total_output_tokens, 22);
  // §9.4 expects null with no price rows; Heddle ships default prices (src/data/default-prices.json),
  // so the model of S2/S4 is priced here (checklist 36 checks the amounts)
  assert.equal(typeof res.total_cost_usd, 'number');
});

test('57: an unknown trace is the empty projection', async () => {
  const res = await chat(project(), 'f'.repeat(32));
  assert.equal(res.trace_id, 'f'.repeat(32));
  assert.deepEqual([res.messages, res.total_duration_ms, res.total_input_tokens], [[], null, 0]);
});

test('58: an agent output mirroring its child chat output is one message, the child’s', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [op('invoke_agent'), attr('gen_ai.agent.name', 'a'), out('done')]),
      span(S2, S1, 10, [op('chat'), out('done')]),
    ],
    p,
  );
  const assistants = (await chat(p)).messages.filter((m: any) => m.type === 'assistant_message');
  assert.deepEqual(
    assistants.map((m: any) => m.span_id),
    [S2],
  );
});

test('59: an agent whose subtree says nothing answers itself with the subtree’s tokens', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [op('invoke_agent'), attr('gen_ai.agent.name', 'a'), out('answer')]),
      span(S2, S1, 10, [op('execute_tool'), attr('gen_ai.tool.name', 't')]),
      span(S3, S2, 20, [op('chat'), attr('gen_ai.usage.input_tokens', 5), attr('gen_ai.usage.output_tokens', 5)]),
    ],
    p,
  );
  const assistants = (await chat(p)).messages.filter((m: any) => m.type === 'assistant_message');
  assert.equal(assistants.length, 1);
  assert.equal(assistants[0].span_id, S1);
  assert.deepEqual(
    [assistants[0].assistant_message.input_tokens, assistants[0].assistant_message.output_tokens],
    [5, 5],
  );
});

test('60: compaction is a context_compacted message after the agent start', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [
        op('invoke_agent'),
        attr('gen_ai.agent.name', 'a'),
        attr('weave.compaction.summary', 'trimmed'),
        attr('weave.compaction.items_before', 10),
        attr('weave.compaction.items_after', 3),
      ]),
      span(S2, S1, 10, [op('chat'), out('hi')]),
    ],
    p,
  );
  const m = (await chat(p)).messages;
  assert.deepEqual(
    m.map((x: any) => x.type),
    ['agent_start', 'context_compacted', 'assistant_message'],
  );
  assert.deepEqual(m[1].context_compacted, {
    compaction_summary: 'trimmed',
    compaction_items_before: 10,
    compaction_items_after: 3,
  });
});

test('61: a nested agent gets its own start; labels follow the nearest agent', async () => {
  const p = project();
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [op('invoke_agent'), attr('gen_ai.agent.name', 'A')], { endMs: 1000 }),
      span(S2, S1, 10, [op('invoke_agent'), attr('gen_ai.agent.name', 'B')]),
      span(S3, S2, 20, [op('execute_tool'), attr('gen_ai.tool.name', 't')]),
      span(S4, S1, 500, [op('chat'), out('final')]),
    ],
    p,
  );
  const m = (await chat(p)).messages.map((x: any) => [x.type, x.agent_name]);
  assert.deepEqual(m, [
    ['agent_start', 'A'],
    ['agent_start', 'B'],
    ['tool_call', 'B'],
    ['assistant_message', 'A'],
  ]);
});

test('62: a failed LLM span without output is an empty assistant message with status ERROR', async () => {
  const p = project();
  await sendAgents(h, [span(S1, undefined, 0, [op('chat')], { status: { code: 2, message: 'boom' } })], p);
  const [m] = (await chat(p)).messages;
  assert.deepEqual([m.type, m.assistant_message.text, m.assistant_message.status], ['assistant_message', '', 'ERROR']);
});

test('63: replayed user messages appear once, in walk order', async () => {
  const p = project();
  const inputs = (list: Array<[string, string]>) =>
    attr('gen_ai.input.messages', JSON.stringify(list.map(([role, content]) => ({ role, content }))));
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [op('chat'), inputs([['user', 'u1']])]),
      span(S2, undefined, 200, [
        op('chat'),
        inputs([
          ['user', 'u1'],
          ['assistant', 'a1'],
          ['user', 'u2'],
        ]),
      ]),
    ],
    p,
  );
  const users = (await chat(p)).messages
    .filter((m: any) => m.type === 'user_message')
    .map((m: any) => m.user_message.text);
  assert.deepEqual(users, ['u1', 'u2']);
});

test('64: conversation chat pages turns newest first and returns them oldest first', async () => {
  const p = project();
  const turn = (i: number): VSpan => ({
    spanId: `${i}`.repeat(16),
    name: 'invoke_agent a',
    startMs: i * 1000,
    endMs: i * 1000 + 10,
    attributes: [op('invoke_agent'), attr('gen_ai.conversation.id', 'c'), out(`answer ${i}`)],
    traceId: `${i}`.repeat(32),
  });
  await sendAgents(h, [turn(1), turn(2), turn(3)], p);
  const page = await ok(h, '/agents/conversations/chat', { project_id: p, conversation_id: 'c', limit: 2, offset: 0 });
  assert.deepEqual(
    page.turns.map((t: any) => t.trace_id),
    ['2'.repeat(32), '3'.repeat(32)],
  );
  assert.deepEqual([page.total_turns, page.has_more], [3, true]);
  const rest = await ok(h, '/agents/conversations/chat', { project_id: p, conversation_id: 'c', limit: 2, offset: 2 });
  assert.deepEqual(
    rest.turns.map((t: any) => t.trace_id),
    ['1'.repeat(32)],
  );
  assert.equal(rest.has_more, false);
  assert.equal(
    (await h.post('/agents/conversations/chat', { project_id: p, conversation_id: 'c', limit: 51 })).statusCode,
    422,
  );
});

test('65: include_model_tool_calls shows a requested call that no span executed', async () => {
  const p = project();
  const request = { type: 'tool_call', id: 'call_9', name: 'lookup', arguments: { q: 'x' } };
  await sendAgents(
    h,
    [
      span(S1, undefined, 0, [
        op('chat'),
        attr('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [request] }])),
      ]),
    ],
    p,
  );
  const off = (await chat(p)).messages;
  assert.equal(off.filter((m: any) => m.type === 'tool_call').length, 0);
  const on = (await ok(h, '/agents/traces/chat', { project_id: p, trace_id: VTRACE, include_model_tool_calls: true }))
    .messages;
  const calls = on.filter((m: any) => m.type === 'tool_call');
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].tool_call, {
    tool_name: 'lookup',
    tool_arguments: '{"q":"x"}',
    tool_result: null,
    duration_ms: null,
    status: null,
    content_refs: [],
  });
  // the vector's request call_1 is executed by S3, so it is not shown twice
  const q = project();
  await sendAgents(h, VECTOR, q);
  const vector = (
    await ok(h, '/agents/traces/chat', { project_id: q, trace_id: VTRACE, include_model_tool_calls: true })
  ).messages;
  assert.equal(vector.filter((m: any) => m.type === 'tool_call').length, 1);
});
