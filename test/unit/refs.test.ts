import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findMalformedRef, isWellFormedRef, opDisplayName } from '../../src/domain/refs.js';

/** src/domain/refs.ts: ref shape checks (docs/spec/objects.md §5.5) and the op name shown as trace_name (docs/spec/calls.md §2.6). */

test('isWellFormedRef needs entity, project and a non-empty rest', () => {
  const cases: Array<[string, boolean]> = [
    ['weave:///acme/demo/op/chat:abc', true],
    ['weave:///acme/demo/object/Model:Zx1/attr/rows/id/r1', true],
    ['weave:///acme/demo/call/0194f3a2', true],
    ['weave:///acme/demo/x', true],
    ['weave:///', false],
    ['weave:///acme', false],
    ['weave:///acme/demo', false],
    ['weave:///acme/demo/', false],
    ['weave:////demo/op/x', false],
    ['weave:///acme//op/x', false],
    ['weave://acme/demo/op/x', false],
    ['http://acme/demo/op/x', false],
  ];
  for (const [ref, ok] of cases) assert.equal(isWellFormedRef(ref), ok, ref);
});

test('findMalformedRef walks objects and arrays and ignores other strings', () => {
  const cases: Array<[unknown, string | undefined]> = [
    [{}, undefined],
    [null, undefined],
    [42, undefined],
    ['weave:///acme', 'weave:///acme'],
    [{ a: 'plain', b: ['weave:///acme/demo/op/x:1'] }, undefined],
    [{ a: { b: [1, { c: 'weave:///acme/demo' }] } }, 'weave:///acme/demo'],
    [['ok', 'weave:///', 'weave:///x'], 'weave:///'],
    [{ 'weave:///bad-key': 'value' }, undefined],
    [{ text: 'see weave:/// for details' }, undefined],
  ];
  for (const [value, expected] of cases) assert.equal(findMalformedRef(value), expected, JSON.stringify(value));
});

test('opDisplayName: op and object refs give their name, plain names themselves, other refs null', () => {
  const cases: Array<[string, string | null]> = [
    ['chat', 'chat'],
    ['', ''],
    ['weave:///acme/demo/op/answer:kT9pQ2', 'answer'],
    ['weave:///acme/demo/op/answer', 'answer'],
    ['weave:///acme/demo/object/Model:Zx1', 'Model'],
    ['weave:///acme/demo/object/Model:Zx1/attr/predict', 'Model'],
    ['weave:///acme/demo/call/0194f3a2', null],
    ['weave:///acme/demo/table/abc', null],
    ['weave:///acme/demo/op/:abc', null],
    ['weave:///acme/demo', null],
  ];
  for (const [opName, expected] of cases) assert.equal(opDisplayName(opName), expected, opName);
});
