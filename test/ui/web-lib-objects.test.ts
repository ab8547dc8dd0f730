/** Unit tests for object kinds, methods and usage (web/src/lib/object-kinds.ts) and the prompt diff (prompt-diff.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asMessages } from '../../web/src/lib/chat.js';
import {
  inputRefFilterText,
  inputRefQuery,
  objectAttributes,
  objectKind,
  objectMethods,
  usageInputs,
} from '../../web/src/lib/object-kinds.js';
import { diffMessages } from '../../web/src/lib/prompt-diff.js';
import { parseFieldFilter } from '../../web/src/lib/query.js';

const obj = (base: string | null, leaf: string | null = base) => ({
  kind: 'object' as const,
  base_object_class: base,
  leaf_object_class: leaf,
});

test('the kind follows the base class first, then the leaf class', () => {
  assert.equal(objectKind({ kind: 'op', base_object_class: null, leaf_object_class: null }), 'op');
  assert.equal(objectKind(obj('Model', 'RagModel')), 'model');
  assert.equal(objectKind(obj('Model', 'LLMStructuredCompletionModel')), 'model');
  assert.equal(objectKind(obj('Scorer', 'ExactMatch')), 'scorer');
  assert.equal(objectKind(obj('Dataset')), 'dataset');
  assert.equal(objectKind(obj('Evaluation')), 'evaluation');
  assert.equal(objectKind(obj('Prompt', 'MessagesPrompt')), 'prompt');
  assert.equal(objectKind(obj('Object', 'StringPrompt')), 'prompt');
  assert.equal(objectKind(obj(null)), 'object');
  assert.equal(objectKind(obj('Object', 'Config')), 'object');
});

const MODEL = {
  _type: 'RagModel',
  _class_name: 'RagModel',
  _bases: ['Model', 'Object', 'BaseModel'],
  name: 'rag',
  description: 'Retrieves, then answers',
  model: 'gpt-4o-mini',
  temperature: 0.2,
  predict: 'weave:///acme/demo/op/RagModel.predict:d1',
  retrieve: 'weave:///acme/demo/op/RagModel.retrieve:d2',
  dataset: 'weave:///acme/demo/object/docs:d3',
  field_ref: 'weave:///acme/demo/op/other:d4/attr/x',
};

test("a model's methods are its op refs; its attributes are the rest but the serializer's own", () => {
  assert.deepEqual(
    objectMethods(MODEL).map((m) => [m.attribute, m.name, m.digest]),
    [
      ['predict', 'RagModel.predict', 'd1'],
      ['retrieve', 'RagModel.retrieve', 'd2'],
    ],
  );
  assert.deepEqual(
    objectAttributes(MODEL).map((a) => a.name),
    ['model', 'temperature', 'dataset', 'field_ref'],
  );
  assert.deepEqual(objectMethods('text'), []);
  assert.deepEqual(objectAttributes([1, 2]), []);
});

test('usage: a model by its evaluations and its methods, a scorer by its methods; the query matches the filter text', () => {
  assert.deepEqual(
    usageInputs('model').map((u) => [u.field, u.op]),
    [
      ['model', 'Evaluation.evaluate'],
      ['self', undefined],
    ],
  );
  assert.deepEqual(
    usageInputs('scorer').map((u) => u.field),
    ['self'],
  );
  assert.deepEqual(usageInputs('dataset'), []);
  const ref = 'weave:///acme/demo/object/rag:d9';
  assert.deepEqual(parseFieldFilter(inputRefFilterText('model', ref)), [inputRefQuery('model', ref).$expr]);
});

const msgs = (...m: [string, string][]) => asMessages(m.map(([role, content]) => ({ role, content })))!;

test('prompt diff: unchanged, edited in place, added and removed messages; a role change is no edit', () => {
  const before = msgs(['system', 'You are terse.\nAnswer in English.'], ['user', '{question}'], ['assistant', 'Ok.']);
  const after = msgs(
    ['system', 'You are terse.\nAnswer in French.'],
    ['user', '{question}'],
    ['user', 'Cite a source.'],
  );
  const d = diffMessages(before, after);
  assert.deepEqual(
    d.map((c) => [c.kind, c.role, c.from, c.to]),
    [
      ['changed', 'system', 1, 1],
      ['same', 'user', 2, 2],
      ['removed', 'assistant', 3, undefined],
      ['added', 'user', undefined, 3],
    ],
  );
  assert.deepEqual(
    d[0]!.lines.map((l) => [l.kind, l.text]),
    [
      ['same', 'You are terse.'],
      ['removed', 'Answer in English.'],
      ['added', 'Answer in French.'],
    ],
  );
  const grown = diffMessages(before.slice(0, 2), after.slice(1));
  assert.deepEqual(
    grown.map((c) => [c.kind, c.role]),
    [
      ['removed', 'system'],
      ['same', 'user'],
      ['added', 'user'],
    ],
  );
  assert.deepEqual(
    diffMessages(before, before).map((c) => c.kind),
    ['same', 'same', 'same'],
  );
});

test('prompt diff: an edit pairs with the next added message of its role, not the first added one', () => {
  const before = msgs(['system', 'Be terse.'], ['user', 'Q?']);
  const after = msgs(['assistant', 'Hello.'], ['system', 'Be terse, please.'], ['user', 'Q?']);
  assert.deepEqual(
    diffMessages(before, after).map((c) => [c.kind, c.role, c.from, c.to]),
    [
      ['changed', 'system', 1, 2],
      ['added', 'assistant', undefined, 1],
      ['same', 'user', 2, 3],
    ],
  );
});
