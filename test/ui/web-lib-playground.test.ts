/** Unit tests for the playground's variants (web/src/lib/playground.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  completionInputs,
  completionOutcome,
  EMPTY_STREAM,
  emptyVariant,
  foldStreamLine,
  messagesFromPrompt,
  messagesPromptValue,
  promptNameProblem,
  variantFromInputs,
  variantProblem,
} from '../../web/src/lib/playground.js';

test("a chat call's inputs become a variant, and the variant sends them back", () => {
  const inputs = {
    model: 'gpt-4o-mini',
    temperature: 0.7,
    max_tokens: 64,
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      { role: 'tool', content: 'ignored role' },
    ],
  };
  const v = variantFromInputs(inputs)!;
  assert.deepEqual(v, {
    model: 'gpt-4o-mini',
    temperature: '0.7',
    maxTokens: '64',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'user', content: 'ignored role' },
    ],
  });
  assert.deepEqual(completionInputs(v), {
    model: 'gpt-4o-mini',
    temperature: 0.7,
    max_tokens: 64,
    messages: v.messages,
  });
  assert.equal(variantFromInputs({ query: 'q' }), null);
  assert.equal(variantFromInputs({ messages: [] }), null);
});

test('empty parameters are left to the provider; blank messages are not sent; bad ones are named', () => {
  const v = {
    ...emptyVariant('local/m'),
    messages: [
      { role: 'user' as const, content: 'x' },
      { role: 'user' as const, content: ' ' },
    ],
  };
  assert.equal(variantProblem(v), null);
  assert.deepEqual(completionInputs(v), { model: 'local/m', messages: [{ role: 'user', content: 'x' }] });
  assert.equal(variantProblem(emptyVariant('m')), 'Write at least one message');
  assert.equal(variantProblem({ ...v, model: ' ' }), 'Choose a model');
  assert.match(variantProblem({ ...v, temperature: '3' })!, /0 to 2/);
  assert.match(variantProblem({ ...v, maxTokens: '1.5' })!, /whole number/);
  assert.equal(messagesPromptValue(v, 'greeting')._class_name, 'MessagesPrompt');
  assert.deepEqual(messagesPromptValue(v, 'greeting').messages, [{ role: 'user', content: 'x' }]);
  // weave.Object's own fields, which the Python client reads back (test/ui/client-flows.test.ts)
  assert.equal(messagesPromptValue(v, 'greeting').name, 'greeting');
  assert.equal(messagesPromptValue(v, 'greeting').description, null);
  assert.equal(promptNameProblem('greeting-v2.a_b'), null);
  assert.notEqual(promptNameProblem('has space'), null);
  assert.notEqual(promptNameProblem(''), null);
});

test("a response's text, error and usage are read", () => {
  assert.deepEqual(
    completionOutcome({
      choices: [{ message: { role: 'assistant', content: 'Hello' } }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }),
    { text: 'Hello', error: null, promptTokens: 3, completionTokens: 1 },
  );
  assert.deepEqual(completionOutcome({ error: 'Provider local failed' }), {
    text: null,
    error: 'Provider local failed',
    promptTokens: null,
    completionTokens: null,
  });
});

test("a saved MessagesPrompt's messages load into a variant", () => {
  assert.deepEqual(
    messagesFromPrompt({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi {name}' }] },
        'not a message',
      ],
    }),
    [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi {name}' },
    ],
  );
  assert.equal(messagesFromPrompt({ messages: [] }), null);
  assert.equal(messagesFromPrompt({ prompt: 'text' }), null);
  assert.equal(messagesFromPrompt(null), null);
});

test('a streamed answer is folded line by line: the call id, the text pieces, the usage, an error', () => {
  const lines = [
    { _meta: { weave_call_id: 'call-1' } },
    { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Once' } }] },
    { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' upon' } }] },
    { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 7, completion_tokens: 2 } },
    'not a record',
  ];
  assert.deepEqual(lines.reduce(foldStreamLine, EMPTY_STREAM), {
    text: 'Once upon',
    error: null,
    promptTokens: 7,
    completionTokens: 2,
    callId: 'call-1',
  });
  assert.equal(foldStreamLine(EMPTY_STREAM, { error: 'Provider x answered 500' }).error, 'Provider x answered 500');
  assert.equal(foldStreamLine(EMPTY_STREAM, { choices: [{ delta: {} }] }).text, null, 'no text yet');
});
