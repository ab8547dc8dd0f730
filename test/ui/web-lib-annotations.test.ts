/** Unit tests for annotation specs (web/src/lib/annotations.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  annotationSpecValue,
  draftSchema,
  fieldValue,
  ownAnnotation,
  specField,
  type AnnotationFeedback,
  type SpecDraft,
} from '../../web/src/lib/annotations.js';

test("a spec's JSON Schema becomes the field a reviewer fills in, and the text a value it accepts", () => {
  const number = specField({ type: 'number', minimum: 1, maximum: 5 });
  assert.deepEqual(number, { kind: 'number', min: 1, max: 5, integer: false });
  assert.deepEqual(fieldValue(number, ' 4.5 '), { value: 4.5 });
  assert.deepEqual(fieldValue(number, '7'), { error: 'At most 5' });
  assert.deepEqual(fieldValue(number, '0'), { error: 'At least 1' });
  assert.deepEqual(fieldValue(number, 'x'), { error: 'Not a number' });
  assert.deepEqual(fieldValue(specField({ type: 'integer' }), '2.5'), { error: 'A whole number' });
  assert.equal(fieldValue(number, ''), null, 'an empty field saves nothing');
  const choice = specField({ type: 'string', enum: ['a', 'b'] });
  assert.deepEqual(choice, { kind: 'choice', options: ['a', 'b'] });
  assert.deepEqual(fieldValue(choice, 'b'), { value: 'b' });
  assert.deepEqual(fieldValue(choice, 'c'), { error: 'Not one of the choices' });
  const text = specField({ type: 'string', maxLength: 3 });
  assert.deepEqual(fieldValue(text, ' ab'), { value: ' ab' }, 'text is kept as typed');
  assert.deepEqual(fieldValue(text, 'abcd'), { error: 'At most 3 characters' });
  assert.deepEqual(fieldValue(specField({ type: 'boolean' }), 'false'), { value: false });
  const other = specField({ type: 'object' });
  assert.deepEqual(other, { kind: 'other' });
  assert.deepEqual(fieldValue(other, '{"a":1}'), { value: { a: 1 } });
  assert.deepEqual(specField(null), { kind: 'other' });
});

test("a reviewer's own newest annotation of a spec", () => {
  const f = (id: string, type: string, user: string, at: string) =>
    ({
      id,
      feedback_type: type,
      wb_user_id: user,
      created_at: at,
      payload: { value: id },
    }) as unknown as AnnotationFeedback;
  const all = [
    f('1', 'wandb.annotation.tone', 'u1', '2026-01-01'),
    f('2', 'wandb.annotation.tone', 'u1', '2026-01-02'),
    f('3', 'wandb.annotation.tone', 'u2', '2026-01-03'),
    f('4', 'wandb.annotation.toneX', 'u1', '2026-01-04'),
  ];
  assert.equal(ownAnnotation(all, 'tone', 'u1')?.id, '2');
  assert.equal(ownAnnotation(all, 'tone', 'u2')?.id, '3');
  assert.equal(ownAnnotation(all, 'tone', 'u3'), undefined);
});

test('a new spec from the form: its schema, or why not; its value as the clients publish it', () => {
  const d: SpecDraft = { name: 'h', description: ' ', kind: 'number', min: '1', max: '5', options: '', maxLength: '' };
  assert.deepEqual(draftSchema(d), { schema: { type: 'number', minimum: 1, maximum: 5 } });
  assert.deepEqual(draftSchema({ ...d, min: '6' }), { error: 'The minimum is above the maximum' });
  assert.deepEqual(draftSchema({ ...d, max: 'x' }), { error: 'Maximum is not a number' });
  assert.deepEqual(draftSchema({ ...d, min: '', max: '' }), { schema: { type: 'number' } });
  assert.deepEqual(draftSchema({ ...d, kind: 'choice', options: 'a\n\n a ' }), {
    error: 'Give at least two choices, one per line',
  });
  assert.deepEqual(draftSchema({ ...d, kind: 'choice', options: 'a\nb\na' }), {
    schema: { type: 'string', enum: ['a', 'b'] },
  });
  assert.deepEqual(draftSchema({ ...d, kind: 'text', maxLength: '0' }), {
    error: 'Maximum length is a whole number above 0',
  });
  assert.deepEqual(draftSchema({ ...d, kind: 'boolean' }), { schema: { type: 'boolean' } });
  const val = annotationSpecValue(d, { type: 'boolean' });
  assert.equal(val._class_name, 'AnnotationSpec');
  assert.equal(val.description, null);
  assert.deepEqual(val.field_schema, { type: 'boolean' });
});
