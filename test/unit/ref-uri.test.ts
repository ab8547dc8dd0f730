import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeRefPart, formatRef, parseRef, RefParseError } from '../../src/domain/ref-uri.js';

test('parseRef reads object, op, table and call refs (docs/spec/objects.md §5.1)', () => {
  assert.deepEqual(parseRef('weave:///acme/demo/object/cfg:abc'), {
    kind: 'object',
    entity: 'acme',
    project: 'demo',
    name: 'cfg',
    version: 'abc',
    extra: [],
  });
  assert.deepEqual(parseRef('weave:///acme/demo/op/say_hi:v3'), {
    kind: 'op',
    entity: 'acme',
    project: 'demo',
    name: 'say_hi',
    version: 'v3',
    extra: [],
  });
  assert.deepEqual(parseRef(`weave:///acme/demo/table/${'a'.repeat(64)}`), {
    kind: 'table',
    entity: 'acme',
    project: 'demo',
    digest: 'a'.repeat(64),
  });
  assert.deepEqual(parseRef('weave:///acme/demo/call/0194-x'), {
    kind: 'call',
    entity: 'acme',
    project: 'demo',
    id: '0194-x',
  });
});

test('parseRef decodes extra edge/value pairs and formatRef percent-encodes them back', () => {
  const uri = 'weave:///acme/demo/object/ds:d1/attr/rows/id/RowD/key/a%2Fb%20c/index/2';
  const ref = parseRef(uri);
  assert.equal(ref.kind, 'object');
  assert.deepEqual(ref.kind === 'object' && ref.extra, [
    { edge: 'attr', value: 'rows' },
    { edge: 'id', value: 'RowD' },
    { edge: 'key', value: 'a/b c' },
    { edge: 'index', value: '2' },
  ]);
  assert.equal(formatRef(ref), uri);
  assert.equal(encodeRefPart("a/b c!*'()~._-"), 'a%2Fb%20c%21%2A%27%28%29~._-');
});

test('parseRef refuses strings outside the grammar', () => {
  const bad = [
    'http://acme/demo/object/x:y',
    'weave://acme/demo/object/x:y',
    'weave:///acme/demo',
    'weave:///acme/demo/object',
    'weave:///acme//object/x:y',
    'weave:///acme/demo/thing/x:y',
    'weave:///acme/demo/object/x',
    'weave:///acme/demo/object/x:y:z',
    'weave:///acme/demo/object/:y',
    'weave:///acme/demo/object/x:',
    'weave:///acme/demo/object/x:y/key',
    'weave:///acme/demo/object/x:y/bogus/1',
    'weave:///acme/demo/object/x:y/index/one',
    'weave:///acme/demo/object/x:y/key/%ZZ',
    `weave:///acme/demo/table/${'a'.repeat(64)}/id/x`,
    'weave:///acme/demo/call/c/extra',
  ];
  for (const uri of bad) assert.throws(() => parseRef(uri), RefParseError, uri);
});
