import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chatRequestBody,
  CompletionParseError,
  fillMessages,
  fillTemplate,
  parseCompletion,
  responseFormatOf,
  userInputMessages,
} from '../../../src/domain/server-eval/llm-template.js';

/** The pure half of LLMStructuredCompletionModel.predict (docs/spec/evaluations.md §6.3). */

test('fillTemplate: {var} substitution, literal braces, JSON for non-strings, unknown placeholders kept', () => {
  const vars = { q: 'two plus two', n: 4, obj: { a: [1, true] }, nothing: null };
  const cases: Array<[string, string]> = [
    ['What is {q}?', 'What is two plus two?'],
    ['{n} and {n}', '4 and 4'],
    ['{obj}', '{"a":[1,true]}'],
    ['{nothing}', 'null'],
    ['{{"answer": {n}}}', '{"answer": 4}'],
    ['{missing} stays', '{missing} stays'],
    ['{{q}}', '{q}'],
    ['no placeholders', 'no placeholders'],
    ['{}', '{}'],
  ];
  for (const [template, expected] of cases) assert.equal(fillTemplate(template, vars), expected, template);
});

test('fillMessages fills string and text-part contents; userInputMessages appends strings and lists', () => {
  const messages = fillMessages(
    [
      { role: 'system', content: 'Be {tone}.', name: 'sys', extra: 'dropped' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi {who}' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      { content: 'no role: skipped' },
    ],
    { tone: 'brief', who: 'Ada' },
  );
  assert.deepEqual(messages, [
    { role: 'system', content: 'Be brief.', name: 'sys' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Hi Ada' },
        { type: 'image_url', image_url: { url: 'x' } },
      ],
    },
  ]);
  assert.deepEqual(userInputMessages('hello'), [{ role: 'user', content: 'hello' }]);
  assert.deepEqual(userInputMessages(['a', { role: 'assistant', content: 'b' }]), [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'b' },
  ]);
  assert.deepEqual(userInputMessages(null), []);
});

test('chatRequestBody maps default_params; response_format json/json_object/text/unset', () => {
  assert.deepEqual(responseFormatOf('json'), 'json_object');
  assert.deepEqual(responseFormatOf('json_object'), 'json_object');
  assert.deepEqual(responseFormatOf('text'), 'text');
  assert.deepEqual(responseFormatOf(undefined), 'text');
  const body = chatRequestBody([{ role: 'user', content: 'x' }], {
    messages_template: [],
    temperature: 0.2,
    top_p: null,
    max_tokens: 10,
    stop: ['\n'],
    n_times: 2,
    functions: [],
    response_format: 'json',
  });
  assert.deepEqual(body, {
    messages: [{ role: 'user', content: 'x' }],
    temperature: 0.2,
    max_tokens: 10,
    stop: ['\n'],
    n: 2,
    response_format: { type: 'json_object' },
  });
});

test('parseCompletion: JSON mode parses (code fences allowed), text mode keeps the string, failures are errors', () => {
  const response = (content: string) => ({ choices: [{ message: { role: 'assistant', content } }] });
  assert.deepEqual(parseCompletion(response('{"score": 9}'), 'json_object'), { score: 9 });
  assert.deepEqual(parseCompletion(response('```json\n{"score": 9}\n```'), 'json_object'), { score: 9 });
  assert.equal(parseCompletion(response('{"score": 9}'), 'text'), '{"score": 9}');
  assert.throws(() => parseCompletion(response('nine'), 'json_object'), CompletionParseError);
  assert.throws(() => parseCompletion({ choices: [] }, 'text'), /without a choice/);
});
