import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../src/domain/canonical-json.js';
import {
  digestBytes,
  digestValue,
  isContentHash,
  parseVersionLike,
  StreamDigest,
  tableDigest,
} from '../../src/domain/digest.js';
import { parseLosslessJson } from '../../src/domain/json-value.js';

/** Objects docs/spec/objects.md §1.6: request text → canonical text → digest. */
const EXAMPLES: Array<{ name: string; json: string; canonical: string; digest: string }> = [
  {
    name: 'E1',
    json: '{"b": 1, "a": "x"}',
    canonical: '{"a": "x", "b": 1}',
    digest: 'OFgg8Alv1Vj0CRMZ5Yp0LOv4d9w7rKGAmBiJ8cQOyoQ',
  },
  {
    name: 'E2',
    json: '{"name":"café","score":1.0,"n":10,"items":[true,null,"😀"]}',
    canonical: '{"items": [true, null, "\\ud83d\\ude00"], "n": 10, "name": "caf\\u00e9", "score": 1.0}',
    digest: 'lzxTMXGcAgvtarnYYnDs3mhqpLRsSpZpKUwDCIAZOmY',
  },
  { name: 'E3', json: '"hello"', canonical: '"hello"', digest: 'WqdirjgYu3J688ejbUlApbjECpiUUtIwT8lYYz81Tno' },
  { name: 'E4 int', json: '{"x": 1}', canonical: '{"x": 1}', digest: 'YTYlqmU0Pbsbmr5qusZ3P1yRvWDT8vX34urmnh24sic' },
  {
    name: 'E4 float',
    json: '{"x": 1.0}',
    canonical: '{"x": 1.0}',
    digest: 'hXYo5CD9tT04YhwV9Lb3Yn20n4eGfwZO2DFpPCvifmA',
  },
  {
    name: 'E5',
    json: '{"z":1,"a":{"d":2,"c":[3,{"b":4,"a":5}]}}',
    canonical: '{"a": {"c": [3, {"a": 5, "b": 4}], "d": 2}, "z": 1}',
    digest: 'gXvWD5YaENiAhc7cPDkTYYbbqsULW6OraZX8kzvIXgk',
  },
  { name: 'E6 null', json: 'null', canonical: 'null', digest: 'dCNOmKYnSYX12vHzasLXiswzlGT5UHA7jAGYkvmCuQs' },
  { name: 'E6 {}', json: '{}', canonical: '{}', digest: 'RBNvo1WzZ4oRRq0W9XhknpT7T8If536DEMBg9hyqY4o' },
  { name: 'E6 []', json: '[]', canonical: '[]', digest: 'T1PNoYwrqgwDVLtfmj7L5e0Sq02OEbqHPC8RFhICuUU' },
  {
    name: 'E7',
    json: '{"_type":"MyModel","name":"m1","temperature":0.5,"_class_name":"MyModel","_bases":["Model","Object","BaseModel"]}',
    canonical:
      '{"_bases": ["Model", "Object", "BaseModel"], "_class_name": "MyModel", "_type": "MyModel", "name": "m1", "temperature": 0.5}',
    digest: 'kVfIWpLOnkzXv2BqYEUPYUoQQdK9yAL6iShQDOK0nBg',
  },
  {
    name: 'E8',
    json: '{"_type":"CustomWeaveType","weave_type":{"type":"Op"},"files":{"obj.py":"uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek"}}',
    canonical:
      '{"_type": "CustomWeaveType", "files": {"obj.py": "uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek"}, "weave_type": {"type": "Op"}}',
    digest: '7KzzLR3hrHPnusB5QOoLEg5x3ulnWFTPmTHJXahsIS8',
  },
  {
    name: 'E11 big',
    json: '{"big": 12345678901234567890}',
    canonical: '{"big": 12345678901234567890}',
    digest: 'GbRsLDYZiVS5AmYZwJjl1sguqJYEmSeYXN5PtvCLzig',
  },
  {
    name: 'E11 exp',
    json: '{"e": 1e100}',
    canonical: '{"e": 1e+100}',
    digest: '4M2Hk3ux6bnpek2rS1OIqW3IAwmzwYofYm4X7ymXpSk',
  },
];

for (const example of EXAMPLES) {
  test(`§1.6 ${example.name}: canonical text and digest`, () => {
    const { digest, canonical } = digestValue(parseLosslessJson(example.json));
    assert.equal(canonical, example.canonical);
    assert.equal(digest, example.digest);
  });
}

test('§1.6 E9: row digests and order-dependent table digest', () => {
  const rows = ['{"q":"2+2","a":4}', '{"q":"capital of France","a":"Paris"}'].map(
    (row) => digestValue(parseLosslessJson(row)).digest,
  );
  assert.deepEqual(rows, [
    'VFqNlLTJiR3tbX0qjLO67Q2feGsqM1vILazadYZcfEI',
    'Qf7PtO7LOmJhnRvTrOPu786gRYJ7rwZZ3ZZ6lmEMSdE',
  ]);
  assert.equal(tableDigest(rows), '025ed7a6455ee35f2b15483140ce8ee0161bf30dd9abc9f326da69b11c37fbfe');
  assert.equal(tableDigest([...rows].reverse()), 'b8db9a39856b5b56c71b19c3d771bce08d4992aec09a7a8a9acdcb5bba8ffa7e');
  assert.equal(tableDigest([]), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});

test('§1.6 E10: file digests, whole and streamed in pieces', () => {
  assert.equal(digestBytes(Buffer.from('hello world')), 'uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek');
  assert.equal(digestBytes(Buffer.alloc(0)), '47DEQpj8HBSaXYTImWX5JCeuQeRkm5NMpJWZG3hSuFU');
  const stream = new StreamDigest();
  for (const piece of ['hel', 'lo', ' world']) stream.update(Buffer.from(piece));
  assert.equal(stream.size, 11);
  assert.equal(stream.finish(), 'uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek');
});

test('§1.2 unsorted hashing (older servers) differs from the sorted digest', () => {
  assert.equal(digestBytes('{"b": 1, "a": "x"}'), 'gQWt3FJEUonDYnQ3ReuevXJyZsIRpJOGGXpaofCMXEs');
  assert.notEqual(
    digestValue(parseLosslessJson('{"b":1,"a":"x"}')).digest,
    'gQWt3FJEUonDYnQ3ReuevXJyZsIRpJOGGXpaofCMXEs',
  );
});

test('§1.2 duplicate keys: the last one wins', () => {
  assert.equal(canonicalJson(parseLosslessJson('{"a": 1, "b": 2, "a": 3}')), '{"a": 3, "b": 2}');
});

test('§1.1 every digest is 43 characters of [A-Za-z0-9]', () => {
  for (let i = 0; i < 200; i += 1) assert.match(digestBytes(`value ${i}`), /^[A-Za-z0-9]{43}$/);
});

test('§1.8 content hashes and version-like strings', () => {
  assert.equal(isContentHash('uU0nuZNNPgilLlLX2n2rXsSE7XN6U4DukIj3rOLvzek'), true);
  assert.equal(isContentHash('025ed7a6455ee35f2b15483140ce8ee0161bf30dd9abc9f326da69b11c37fbfe'), true);
  assert.equal(isContentHash('prod'), false);
  assert.equal(parseVersionLike('v0'), 0);
  assert.equal(parseVersionLike('v12'), 12);
  assert.equal(parseVersionLike('V1'), null);
  assert.equal(parseVersionLike('v'), null);
});
