import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, parseJsonl, type TestApp } from '../helpers/app.js';
import { attr, exportReq, ingestOne, projectCalls, sendOtel, span, toProtobuf, type Attr } from './otel-fixture.js';

/** Chat messages, sessions and users as Phoenix (OpenInference) and GenAI instrumentations send them. */

const TRACE = '5b8aa5a2d2c872e8321cf37308d69df2';

/** An OpenInference agent turn: a CHAIN root and an LLM child with messages, tool calls and tokens. */
function openInferenceSpans(session: string, rootId: string, llmId: string): Array<Record<string, unknown>> {
  const common: Attr[] = [attr('session.id', session), attr('user.id', 'user-42')];
  return [
    span({
      traceId: TRACE,
      spanId: rootId,
      name: 'Agent.run',
      attributes: [
        ...common,
        attr('openinference.span.kind', 'CHAIN'),
        attr('input.value', 'What is the weather in Lisbon?'),
        attr('output.value', 'Sunny, 24 °C.'),
      ],
    }),
    span({
      traceId: TRACE,
      spanId: llmId,
      parentSpanId: rootId,
      name: 'ChatCompletion',
      attributes: [
        ...common,
        attr('openinference.span.kind', 'LLM'),
        attr('llm.model_name', 'gpt-4o-mini'),
        attr('llm.provider', 'openai'),
        attr('llm.invocation_parameters', '{"temperature": 0.2}'),
        attr('input.value', '{"messages": [], "model": "gpt-4o-mini"}'),
        attr('llm.input_messages.0.message.role', 'system'),
        attr('llm.input_messages.0.message.content', 'You are terse.'),
        attr('llm.input_messages.1.message.role', 'user'),
        attr('llm.input_messages.1.message.contents.0.message_content.type', 'text'),
        attr('llm.input_messages.1.message.contents.0.message_content.text', 'What is the weather in Lisbon?'),
        attr('llm.input_messages.1.message.contents.1.message_content.type', 'image'),
        attr('llm.input_messages.1.message.contents.1.message_content.image.image.url', 'https://x.test/l.png'),
        attr('llm.input_messages.2.message.role', 'assistant'),
        attr('llm.input_messages.2.message.tool_calls.0.tool_call.id', 'call_1'),
        attr('llm.input_messages.2.message.tool_calls.0.tool_call.function.name', 'weather'),
        attr('llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments', '{"city": "Lisbon"}'),
        attr('llm.input_messages.3.message.role', 'tool'),
        attr('llm.input_messages.3.message.tool_call_id', 'call_1'),
        attr('llm.input_messages.3.message.content', '{"sky": "clear", "c": 24}'),
        attr('llm.output_messages.0.message.role', 'assistant'),
        attr('llm.output_messages.0.message.content', 'Sunny, 24 °C.'),
        attr('output.value', 'Sunny, 24 °C.'),
        attr('llm.token_count.prompt', 31),
        attr('llm.token_count.completion', 7),
        attr('llm.token_count.total', 38),
      ],
    }),
  ];
}

async function assertOpenInferenceCalls(h: TestApp, rootId: string, llmId: string): Promise<void> {
  const calls = await projectCalls(h);
  const root = calls.find((c) => c.id === rootId);
  const llm = calls.find((c) => c.id === llmId);
  assert.ok(root && llm, JSON.stringify(calls.map((c) => c.id)));
  assert.deepEqual(llm.inputs, {
    messages: [
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is the weather in Lisbon?' },
          { type: 'image_url', image_url: { url: 'https://x.test/l.png' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' }, id: 'call_1' }],
      },
      { role: 'tool', content: '{"sky":"clear","c":24}', tool_call_id: 'call_1' },
    ],
  });
  assert.deepEqual(llm.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny, 24 °C.' }, finish_reason: null }],
  });
  assert.deepEqual([root.thread_id, llm.thread_id], ['sess-1', 'sess-1']);
  assert.deepEqual([root.turn_id, llm.turn_id], [rootId, null], 'the trace root is the turn');
  assert.equal(llm.attributes.user_id, 'user-42');
  assert.equal(llm.attributes.kind, 'LLM');
  assert.equal(llm.attributes.model, 'gpt-4o-mini');
  assert.deepEqual(llm.summary.usage, {
    'gpt-4o-mini': {
      input_tokens: null,
      output_tokens: null,
      prompt_tokens: 31,
      completion_tokens: 7,
      total_tokens: 38,
      requests: null,
    },
  });
  // the root has text in and out, no token counts: no usage entry of nulls
  assert.deepEqual(root.inputs, { 'input.value': 'What is the weather in Lisbon?' });
  assert.deepEqual(root.output, { 'output.value': 'Sunny, 24 °C.' });
  // issue 33: the root carries its subtree's usage and status counts, as the Python client's roll-up does
  assert.deepEqual(root.summary.usage, {
    'gpt-4o-mini': { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38 },
  });
  assert.deepEqual(root.summary.status_counts, { success: 2, error: 0 });
  assert.match(llm.op_name, /\/op\/chatcompletion:/);
  assert.equal(llm.summary.weave.trace_name, 'chatcompletion');
}

for (const encoding of ['json', 'protobuf'] as const) {
  test(`OpenInference (${encoding}): messages become chat inputs/choices, session.id the thread, user.id an attribute`, async (t) => {
    const h = await buildTestApp(t);
    const req = exportReq(openInferenceSpans('sess-1', 'a000000000000001', 'a000000000000002'));
    const res = await sendOtel(h, encoding === 'json' ? req : toProtobuf(req));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { partial_success: null });
    await assertOpenInferenceCalls(h, 'a000000000000001', 'a000000000000002');

    // the session is a thread with one turn; calls filter on the user id attribute
    const threads = await h.post('/threads/stream_query', { project_id: 'acme/demo' });
    assert.equal(threads.statusCode, 200, threads.body);
    const [thread] = parseJsonl(threads.body);
    assert.ok(thread !== undefined);
    assert.equal(thread.thread_id, 'sess-1');
    assert.equal(thread.turn_count, 1);
    const byUser = await h.post('/calls/query', {
      project_id: 'acme/demo',
      query: { $expr: { $eq: [{ $getField: 'attributes.user_id' }, { $literal: 'user-42' }] } },
    });
    assert.equal(byUser.statusCode, 200, byUser.body);
    assert.equal(byUser.json().calls.length, 2);
  });
}

test('GenAI conventions: gen_ai.input.messages / gen_ai.output.messages with parts and system instructions', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [
      attr('gen_ai.conversation.id', 'conv-9'),
      attr('gen_ai.system_instructions', '[{"type": "text", "content": "Be brief."}]'),
      attr(
        'gen_ai.input.messages',
        JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'c1', name: 'weather', arguments: { city: 'Paris' } }],
          },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'rain' }] },
        ]),
      ),
      attr(
        'gen_ai.output.messages',
        JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Rain.' }], finish_reason: 'stop' }]),
      ),
    ],
  });
  assert.deepEqual(call.inputs, {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' }, id: 'c1' }],
      },
      { role: 'tool', content: 'rain', tool_call_id: 'c1' },
    ],
  });
  assert.deepEqual(call.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'Rain.' }, finish_reason: 'stop' }],
  });
  assert.deepEqual([call.thread_id, call.turn_id], ['conv-9', call.id]);
  assert.equal(call.summary.usage, undefined);
});

test('GenAI events: gen_ai.*.message events in order become messages, gen_ai.choice events the choices', async (t) => {
  const h = await buildTestApp(t);
  const at = '1767225600100000000';
  const call = await ingestOne(h, {
    attributes: [attr('gen_ai.request.model', 'm-1'), attr('gen_ai.usage.input_tokens', 5)],
    events: [
      { name: 'gen_ai.system.message', timeUnixNano: at, attributes: [attr('content', 'Be brief.')] },
      { name: 'gen_ai.user.message', timeUnixNano: at, attributes: [attr('content', 'Hi')] },
      {
        name: 'gen_ai.choice',
        timeUnixNano: at,
        attributes: [
          attr('index', 0),
          attr('finish_reason', 'stop'),
          attr('message', { role: 'assistant', content: 'Hello!' }),
        ],
      },
    ],
  });
  assert.deepEqual(call.inputs, {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
  });
  assert.deepEqual(call.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
  });
  assert.equal(call.summary.usage['m-1'].input_tokens, 5);
});

test('a session id on every span of two traces gives one thread with two turns', async (t) => {
  const h = await buildTestApp(t);
  const second = openInferenceSpans('sess-1', 'b000000000000001', 'b000000000000002').map((s) => ({
    ...s,
    traceId: '6b8aa5a2d2c872e8321cf37308d69df3',
  }));
  const res = await sendOtel(
    h,
    exportReq([...openInferenceSpans('sess-1', 'a000000000000001', 'a000000000000002'), ...second]),
  );
  assert.equal(res.statusCode, 200, res.body);
  const threads = parseJsonl((await h.post('/threads/stream_query', { project_id: 'acme/demo' })).body);
  assert.deepEqual(
    threads.map((th) => [th.thread_id, th.turn_count]),
    [['sess-1', 2]],
  );
});
