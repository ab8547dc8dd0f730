import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canonicalJson,
  compareCodePoints,
  numberLiteral,
  pythonFloatRepr,
  quote,
} from '../../src/domain/canonical-json.js';
import { parseLosslessJson } from '../../src/domain/json-value.js';

/** Python `repr(float(literal))` for literals covering each branch of §1.2's float rule. */
const FLOATS: Array<[string, string]> = [
  ['1.0', '1.0'],
  ['100.0', '100.0'],
  ['0.0001', '0.0001'],
  ['0.00001', '1e-05'],
  ['2.5e-7', '2.5e-07'],
  ['1e16', '1e+16'],
  ['1e15', '1000000000000000.0'],
  ['123456789012345678.0', '1.2345678901234568e+17'],
  ['-0.0', '-0.0'],
  ['0.1', '0.1'],
  ['-1.5', '-1.5'],
  ['3.14159', '3.14159'],
  ['1E5', '100000.0'],
  ['1e-4', '0.0001'],
  ['9999999999999998.0', '9999999999999998.0'],
  ['1.7976931348623157e308', '1.7976931348623157e+308'],
  ['5e-324', '5e-324'],
  ['1e400', 'Infinity'],
  ['0.30000000000000004', '0.30000000000000004'],
  ['1234.5e-2', '12.345'],
];

for (const [literal, expected] of FLOATS) {
  test(`float literal ${literal} renders as Python repr ${expected}`, () => {
    assert.equal(numberLiteral(literal), expected);
  });
}

test('integers keep their exact digits; -0 becomes 0', () => {
  assert.equal(numberLiteral('123456789012345678901234567890'), '123456789012345678901234567890');
  assert.equal(numberLiteral('-42'), '-42');
  assert.equal(numberLiteral('-0'), '0');
});

test('non-finite JS numbers use Python spellings', () => {
  assert.equal(pythonFloatRepr(NaN), 'NaN');
  assert.equal(pythonFloatRepr(-Infinity), '-Infinity');
});

test('string escaping follows ensure_ascii with lowercase hex', () => {
  assert.equal(quote('a"b\\c/d'), '"a\\"b\\\\c/d"');
  assert.equal(quote('\n\r\t\b\f'), '"\\n\\r\\t\\b\\f"');
  assert.equal(quote('\u0000\u001f\u007f'), '"\\u0000\\u001f\\u007f"');
  assert.equal(quote('é€'), '"\\u00e9\\u20ac"');
  assert.equal(quote('😀'), '"\\ud83d\\ude00"');
  assert.equal(quote('\uFFFF'), '"\\uffff"');
});

test('keys sort by code point, not UTF-16 unit', () => {
  // U+1F600 is above U+FF5E by code point, below it by UTF-16 unit (0xD83D < 0xFF5E)
  assert.equal(
    canonicalJson(parseLosslessJson('{"😀": 1, "～": 2, "a": 3}')),
    '{"a": 3, "\\uff5e": 2, "\\ud83d\\ude00": 1}',
  );
  assert.ok(compareCodePoints('😀', '～') > 0);
  assert.ok(compareCodePoints('a', 'b') < 0);
  assert.equal(compareCodePoints('x', 'x'), 0);
});

test('nested arrays and objects use Python separators', () => {
  assert.equal(canonicalJson(parseLosslessJson('[1, [2.50, {"k": [false]}], "s"]')), '[1, [2.5, {"k": [false]}], "s"]');
});

test('a __proto__ key is kept as data', () => {
  assert.equal(canonicalJson(parseLosslessJson('{"__proto__": {"x": 1}}')), '{"__proto__": {"x": 1}}');
});
