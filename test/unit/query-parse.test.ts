import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery, parseSort, splitFieldPath } from '../../src/domain/query/parse.js';
import { AppError, InvalidRequestError, RequestValidationError } from '../../src/errors/app-error.js';

/** src/domain/query/parse.ts: field paths and the `$expr` tree (docs/spec/calls.md §5.1–5.2). */

test('splitFieldPath splits on dots, keeping escaped dots inside keys', () => {
  const cases: Array<[string, string[]]> = [
    ['op_name', ['op_name']],
    ['inputs.prompt', ['inputs', 'prompt']],
    ['inputs.messages.0.content', ['inputs', 'messages', '0', 'content']],
    ['summary.usage.gpt-3\\.5-turbo.total_tokens', ['summary', 'usage', 'gpt-3.5-turbo', 'total_tokens']],
    ['inputs.a\\.b\\.c', ['inputs', 'a.b.c']],
    ['inputs.back\\slash', ['inputs', 'back\\slash']],
    ['inputs.trailing\\', ['inputs', 'trailing\\']],
    ['inputs..x', ['inputs', '', 'x']],
    ['inputs.', ['inputs', '']],
    ['', ['']],
  ];
  for (const [path, expected] of cases) assert.deepEqual(splitFieldPath(path), expected, path);
});

const resolve = (path: string): string => {
  if (path === 'bogus') throw new AppError(422, `Field ${path} is not allowed`);
  return path;
};

test('parseQuery builds the tree for every operator', () => {
  const tree = parseQuery(
    {
      $expr: {
        $and: [
          { $eq: [{ $getField: 'a' }, { $literal: 1 }] },
          { $or: [{ $gt: [{ $getField: 'b' }, { $literal: 2 }] }, { $lte: [{ $getField: 'b' }, { $literal: 0 }] }] },
          { $not: [{ $in: [{ $getField: 'c' }, [{ $literal: 'x' }, { $literal: 'y' }]] }] },
          { $contains: { input: { $getField: 'd' }, substr: { $literal: 'z' }, case_insensitive: true } },
          { $containsToken: { input: { $getField: 'd' }, substr: { $literal: 'z' } } },
          { $lt: [{ $convert: { input: { $getField: 'e' }, to: 'int' } }, { $literal: 3 }] },
          { $gte: [{ $getField: 'f' }, { $literal: null }] },
        ],
      },
    },
    resolve,
  );
  assert.deepEqual(tree, {
    kind: 'and',
    args: [
      { kind: 'compare', op: 'eq', left: { kind: 'field', field: 'a' }, right: { kind: 'literal', value: 1 } },
      {
        kind: 'or',
        args: [
          { kind: 'compare', op: 'gt', left: { kind: 'field', field: 'b' }, right: { kind: 'literal', value: 2 } },
          { kind: 'compare', op: 'lte', left: { kind: 'field', field: 'b' }, right: { kind: 'literal', value: 0 } },
        ],
      },
      {
        kind: 'not',
        arg: {
          kind: 'in',
          left: { kind: 'field', field: 'c' },
          list: [
            { kind: 'literal', value: 'x' },
            { kind: 'literal', value: 'y' },
          ],
        },
      },
      {
        kind: 'contains',
        input: { kind: 'field', field: 'd' },
        substr: { kind: 'literal', value: 'z' },
        caseInsensitive: true,
        wholeToken: false,
      },
      {
        kind: 'contains',
        input: { kind: 'field', field: 'd' },
        substr: { kind: 'literal', value: 'z' },
        caseInsensitive: false,
        wholeToken: true,
      },
      {
        kind: 'compare',
        op: 'lt',
        left: { kind: 'convert', input: { kind: 'field', field: 'e' }, to: 'int' },
        right: { kind: 'literal', value: 3 },
      },
      { kind: 'compare', op: 'gte', left: { kind: 'field', field: 'f' }, right: { kind: 'literal', value: null } },
    ],
  });
});

test('parseQuery rejects empty $and/$or (400), a non-operation root (422) and unknown fields (resolver error)', () => {
  assert.throws(
    () => parseQuery({ $expr: { $and: [] } }, resolve),
    (e) => e instanceof InvalidRequestError && /Empty AND/.test(e.message),
  );
  assert.throws(
    () => parseQuery({ $expr: { $or: [] } }, resolve),
    (e) => e instanceof InvalidRequestError && /Empty OR/.test(e.message),
  );
  for (const root of [{ $literal: true }, { $getField: 'a' }, { $convert: { input: { $literal: 1 }, to: 'bool' } }]) {
    assert.throws(() => parseQuery({ $expr: root }, resolve), RequestValidationError, JSON.stringify(root));
  }
  assert.throws(
    () => parseQuery({ $expr: { $eq: [{ $getField: 'bogus' }, { $literal: 1 }] } }, resolve),
    (e) => e instanceof AppError && e.status === 422,
  );
  assert.throws(() => parseQuery({ $expr: { $nope: [] } }, resolve), RequestValidationError);
});

test('parseSort resolves each field and keeps the direction', () => {
  assert.deepEqual(
    parseSort(
      [
        { field: 'a', direction: 'desc' },
        { field: 'b', direction: 'asc' },
      ],
      resolve,
    ),
    [
      { field: 'a', direction: 'desc' },
      { field: 'b', direction: 'asc' },
    ],
  );
  assert.throws(() => parseSort([{ field: 'bogus', direction: 'asc' }], resolve), AppError);
});
