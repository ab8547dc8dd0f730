import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributeTree } from '../../src/ingest/otel/attribute-tree.js';
import { chatInputs, chatOutput, type SpanEvent } from '../../src/ingest/otel/chat-messages.js';
import type { OtelJson } from '../../src/ingest/otel/otlp-model.js';

/** Chat messages of LLM spans (src/ingest/otel/chat-messages.ts), attribute lists as exporters send them. */

const tree = (attrs: Record<string, OtelJson>) =>
  attributeTree(Object.entries(attrs).map(([key, value]) => ({ key, value })));
const event = (name: string, attrs: Record<string, OtelJson>): SpanEvent => ({ name, attributes: tree(attrs) });

const cases: Array<{
  name: string;
  attrs: Record<string, OtelJson>;
  events?: SpanEvent[];
  inputs: OtelJson;
  output: OtelJson;
}> = [
  {
    name: 'no messages: null, so the §A.5 keys apply',
    attrs: { 'input.value': 'hi', 'gen_ai.prompt': 'plain text prompt' },
    inputs: null,
    output: null,
  },
  {
    name: 'OpenInference indices out of order and with gaps keep their order; content JSON stays text',
    attrs: {
      'llm.input_messages.10.message.role': 'user',
      'llm.input_messages.10.message.content': 'second',
      'llm.input_messages.2.message.role': 'system',
      'llm.input_messages.2.message.content': '{"rules": [1]}',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'f',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{}',
    },
    inputs: {
      messages: [
        { role: 'system', content: '{"rules":[1]}' },
        { role: 'user', content: 'second' },
      ],
    },
    output: {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: null,
        },
      ],
    },
  },
  {
    name: 'OpenInference output messages win over GenAI ones; a message with no role is a user input',
    attrs: {
      'llm.input_messages.0.message.content': 'x',
      'llm.output_messages.0.message.content': 'y',
      'gen_ai.output.messages': '[{"role": "assistant", "parts": [{"type": "text", "content": "z"}]}]',
    },
    inputs: { messages: [{ role: 'user', content: 'x' }] },
    output: { choices: [{ index: 0, message: { role: 'assistant', content: 'y' }, finish_reason: null }] },
  },
  {
    name: 'OpenLLMetry indexed completion with finish_reason and tool calls',
    attrs: {
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'weather?',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.finish_reason': 'tool_calls',
      'gen_ai.completion.0.tool_calls.0.id': 't1',
      'gen_ai.completion.0.tool_calls.0.name': 'weather',
      'gen_ai.completion.0.tool_calls.0.arguments': '{"city": "Oslo"}',
    },
    inputs: { messages: [{ role: 'user', content: 'weather?' }] },
    output: {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' }, id: 't1' }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    },
  },
  {
    name: 'GenAI events without message bodies are no chat',
    attrs: {},
    events: [event('gen_ai.choice', { index: 0 })],
    inputs: null,
    output: null,
  },
  {
    name: 'gen_ai.tool.message events carry the tool call id; gen_ai.choice content without a message object',
    attrs: {},
    events: [
      event('gen_ai.assistant.message', {
        tool_calls: '[{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]',
      }),
      event('gen_ai.tool.message', { content: 'ok', id: 'c' }),
      event('gen_ai.choice', { index: 0, finish_reason: 'stop', content: 'done' }),
    ],
    inputs: {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' }, id: 'c' }],
        },
        { role: 'tool', content: 'ok', tool_call_id: 'c' },
      ],
    },
    output: { choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }] },
  },
];

for (const c of cases) {
  test(`chat messages: ${c.name}`, () => {
    const t = tree(c.attrs);
    assert.deepEqual(chatInputs(t, c.events ?? []), c.inputs);
    assert.deepEqual(chatOutput(t, c.events ?? []), c.output);
  });
}
