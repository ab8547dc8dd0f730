import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandInValue, parseExpandColumns } from '../../src/domain/ref-expansion.js';

/** src/domain/ref-expansion.ts: which expand_columns entries count, which refs expand, how values are replaced. */

test('parseExpandColumns keeps JSON-column paths, shallowest first, without duplicates', () => {
  assert.deepEqual(
    parseExpandColumns([
      'inputs.model.config',
      'output.a',
      'inputs.model',
      'inputs',
      'op_name.x',
      'inputs.model',
      'inputs.a\\.b',
    ]),
    [
      { column: 'output', path: ['a'] },
      { column: 'inputs', path: ['model'] },
      { column: 'inputs', path: ['a.b'] },
      { column: 'inputs', path: ['model', 'config'] },
    ],
  );
  assert.deepEqual(parseExpandColumns(null), []);
});

test('expandInValue replaces in order, adds _ref to objects, walks arrays, skips misses', async () => {
  const values: Record<string, unknown> = { r1: { a: 1, inner: 'r2' }, r2: { b: 2 }, r3: [1, 2], r4: 'text' };
  const resolve = async (ref: string) => (ref in values ? structuredClone(values[ref]) : undefined);
  const root = { m: 'r1', list: ['r3', 'r4', 'nope'], n: 5 };
  const out = await expandInValue(
    root,
    [['m'], ['m', 'inner'], ['list', '0'], ['list', '1'], ['list', '2'], ['n'], ['absent', 'x']],
    resolve,
  );
  assert.deepEqual(out, {
    m: { a: 1, inner: { b: 2, _ref: 'r2' }, _ref: 'r1' },
    list: [[1, 2], 'text', 'nope'],
    n: 5,
  });
});
