import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { expr, field, fixtureApp, lit, queryIds } from './calls-fixture.js';

/** docs/spec/calls.md §5.3 value semantics: renderings, typed comparisons, $in typing, $convert, $contains, three-valued logic. */

/** One call per kind of stored value at `inputs.v` (v06 has no `v` at all). */
const VALUES: Array<[string, unknown]> = [
  ['v01', 2],
  ['v02', 10],
  ['v03', 'abc'],
  ['v04', 'b'],
  ['v05', null],
  ['v06', undefined],
  ['v07', true],
  ['v08', 2.5],
  ['v09', '10'],
  ['v10', { a: 1 }],
  ['v11', [1, 2]],
  ['v12', false],
  ['v13', 300],
  ['v14', 'true'],
];
const ALL = VALUES.map(([id]) => id);

async function valuesApp(t: TestContext): Promise<TestApp> {
  const h = await buildTestApp(t);
  for (const [i, [id, v]] of VALUES.entries()) {
    const inputs = v === undefined ? {} : { v };
    const started = new Date(Date.UTC(2025, 0, 1, 10, 0, i)).toISOString();
    await h.post('/call/start', makeStart({ id, inputs, started_at: started, wb_run_step: i }));
    await h.post('/call/end', makeEnd(id, { ended_at: started }));
  }
  return h;
}

const V = field('inputs.v');
const convert = (to: string, input: unknown = V) => ({ $convert: { input, to } });

async function check(h: TestApp, cases: Array<[string, unknown, string[]]>): Promise<void> {
  for (const [name, e, ids] of cases) assert.deepEqual(await queryIds(h, expr(e)), ids, name);
}

test('§5.3 dynamic fields compare as their string rendering against string literals', async (t) => {
  const h = await valuesApp(t);
  await check(h, [
    ['number renders canonically', { $eq: [V, lit('2')] }, ['v01']],
    ['number and numeric string render alike', { $eq: [V, lit('10')] }, ['v02', 'v09']],
    ['real', { $eq: [V, lit('2.5')] }, ['v08']],
    ['booleans and the string "true"', { $eq: [V, lit('true')] }, ['v07', 'v14']],
    ['false', { $eq: [V, lit('false')] }, ['v12']],
    ['object as compact JSON', { $eq: [V, lit('{"a":1}')] }, ['v10']],
    ['array as compact JSON', { $eq: [V, lit('[1,2]')] }, ['v11']],
    ['null and missing render as ""', { $eq: [V, lit('')] }, ['v05', 'v06']],
    ['lexicographic >', { $gt: [V, lit('a')] }, ['v03', 'v04', 'v07', 'v10', 'v12', 'v14']],
    ['whole object', { $eq: [field('inputs'), lit('{"v":"abc"}')] }, ['v03']],
    ['array index', { $eq: [field('inputs.v.1'), lit('2')] }, ['v11']],
    ['object key', { $eq: [field('inputs.v.a'), lit('1')] }, ['v10']],
  ]);
});

test('§5.3 numeric and boolean literals convert the dynamic field first', async (t) => {
  const h = await valuesApp(t);
  await check(h, [
    ['numeric eq includes numeric strings', { $eq: [V, lit(10)] }, ['v02', 'v09']],
    ['double semantics: 2.5 > 2', { $gt: [V, lit(2)] }, ['v02', 'v08', 'v09', 'v13']],
    ['<', { $lt: [V, lit(3)] }, ['v01', 'v08']],
    ['real literal', { $eq: [V, lit(2.5)] }, ['v08']],
    ['literal on the left flips', { $lt: [lit(5), V] }, ['v02', 'v09', 'v13']],
    ['bool true', { $eq: [V, lit(true)] }, ['v07', 'v14']],
    ['bool false', { $eq: [V, lit(false)] }, ['v12']],
    ['$eq literal null is never true for dynamic fields', { $eq: [V, lit(null)] }, []],
    ['…so its negation is always true', { $not: [{ $eq: [V, lit(null)] }] }, ALL],
    ['null operand elsewhere is null', { $gt: [V, lit(null)] }, []],
    ['…and stays null under $not', { $not: [{ $gt: [V, lit(null)] }] }, []],
  ]);
});

test('§5.3 $in picks numeric, boolean or string comparison from its literals; empty list is false', async (t) => {
  const h = await valuesApp(t);
  await check(h, [
    ['all numbers', { $in: [V, [lit(2.5), lit(300)]] }, ['v08', 'v13']],
    ['numbers match numeric strings', { $in: [V, [lit(10)]] }, ['v02', 'v09']],
    ['strings compare as text', { $in: [V, [lit('2.50'), lit('abc')]] }, ['v03']],
    ['mixed → strings', { $in: [V, [lit(2), lit('abc')]] }, ['v01', 'v03']],
    ['all booleans', { $in: [V, [lit(true)]] }, ['v07', 'v14']],
    ['mixed bool and number → strings', { $in: [V, [lit(true), lit(2)]] }, ['v01', 'v07', 'v14']],
    ['empty list', { $in: [V, []] }, []],
    ['not empty list', { $not: [{ $in: [V, []] }] }, ALL],
    ['column $in', { $in: [field('id'), [lit('v01'), lit('v14'), lit('zz')]] }, ['v01', 'v14']],
    ['column $in with a field operand', { $in: [field('trace_id'), [field('id')]] }, ALL],
  ]);
});

test('§5.3 $convert to double, int, bool, string and exists', async (t) => {
  const h = await valuesApp(t);
  await check(h, [
    ['double', { $eq: [convert('double'), lit(10)] }, ['v02', 'v09']],
    ['double of text is null', { $eq: [convert('double', field('inputs.v')), lit(0)] }, []],
    ['int parses only [+-]digits', { $lt: [convert('int'), lit(3)] }, ['v01']],
    ['int of numeric string', { $eq: [convert('int'), lit(10)] }, ['v02', 'v09']],
    ['bool: true / "true" → 1', { $eq: [convert('bool'), lit(1)] }, ['v07', 'v14']],
    ['bool: small ints kept', { $eq: [convert('bool'), lit(2)] }, ['v01']],
    ['bool: false → 0', { $eq: [convert('bool'), lit(false)] }, ['v12']],
    ['string', { $eq: [convert('string'), lit('2.5')] }, ['v08']],
    ['exists', { $eq: [convert('exists'), lit(true)] }, ALL.filter((id) => id !== 'v05' && id !== 'v06')],
    ['not exists', { $eq: [convert('exists'), lit(false)] }, ['v05', 'v06']],
    ['exists as a condition', { $not: [convert('exists')] }, ['v05', 'v06']],
    ['int column to string', { $eq: [convert('string', field('wb_run_step')), lit('12')] }, ['v13']],
    ['literal to int', { $eq: [convert('int', lit('5')), lit(5)] }, ALL],
    [
      'started_at to double is Unix seconds',
      { $gte: [convert('double', field('started_at')), lit(1735725612)] },
      ['v13', 'v14'],
    ],
    ['int of a column', { $eq: [convert('int', field('wb_run_step')), lit(1)] }, ['v02']],
  ]);
});

test('§5.3 $contains on strings and objects; $containsToken; non-strings are false', async (t) => {
  const h = await valuesApp(t);
  const contains = (input: unknown, substr: unknown, extra: Record<string, unknown> = {}) => ({
    $contains: { input, substr, ...extra },
  });
  await check(h, [
    ['object path searches compact JSON', contains(V, lit('"a":1')), ['v10']],
    ['array', contains(V, lit('1,2')), ['v11']],
    ['whole inputs', contains(field('inputs'), lit('abc')), ['v03']],
    ['numbers read as their rendering', contains(V, lit('.5')), ['v08']],
    ['case-sensitive by default', contains(V, lit('ABC')), []],
    ['case-insensitive', contains(V, lit('ABC'), { case_insensitive: true }), ['v03']],
    ['number literal substr is false', contains(V, lit(2)), []],
    ['negated false is true', { $not: [contains(V, lit(2))] }, ALL],
    ['extra keys in the spec are ignored', contains(V, lit('abc'), { flavour: 'x' }), ['v03']],
  ]);
  const fx = await fixtureApp(t);
  const token = (substr: string, ci = false) => ({
    $containsToken: { input: field('inputs.prompt'), substr: lit(substr), case_insensitive: ci },
  });
  assert.deepEqual(await queryIds(fx, expr(token('World'))), ['c-0001']);
  assert.deepEqual(await queryIds(fx, expr(token('Wor'))), []);
  assert.deepEqual(await queryIds(fx, expr(token('world', true))), ['c-0001']);
  // a null column is not a string: $contains is false, so its negation matches
  assert.deepEqual(await queryIds(fx, expr({ $not: [contains(field('display_name'), lit('x'))] })), [
    'c-0001',
    'c-0002',
    'c-0003',
    'c-0004',
  ]);
  assert.deepEqual(await queryIds(fx, expr(contains(field('display_name'), lit('chat')))), ['c-0003']);
});

test('§5.3 three-valued logic and bare operands as conditions', async (t) => {
  const h = await valuesApp(t);
  await check(h, [
    ['$not keeps null comparisons out', { $not: [{ $gt: [V, lit(5)] }] }, ['v01', 'v08']],
    ['$or', { $or: [{ $gt: [V, lit(5)] }, { $eq: [V, lit('abc')] }] }, ['v02', 'v03', 'v09', 'v13']],
    ['$and of one element is that element', { $and: [{ $eq: [V, lit('b')] }] }, ['v04']],
    [
      '$not of $or with a null part',
      { $not: [{ $or: [{ $gt: [V, lit(5)] }, { $eq: [V, lit('abc')] }] }] },
      ['v01', 'v08'],
    ],
    ['bare field: true and non-zero numbers', { $and: [V] }, ['v01', 'v02', 'v07', 'v08', 'v13']],
    ['bare int column', { $or: [field('wb_run_step')] }, ALL.slice(1)],
    ['bare string column is false', { $or: [field('op_name')] }, []],
    ['bare literal true', { $and: [lit(true)] }, ALL],
    ['bare literal string is false', { $or: [lit('yes')] }, []],
    ['bare literal 0 is false', { $not: [lit(0)] }, ALL],
  ]);
});

test('§5.3 columns: mismatched literal kinds are null, datetimes take ISO, offsets, dates and Unix seconds', async (t) => {
  const h = await fixtureApp(t);
  const started = field('started_at');
  const cases: Array<[string, unknown, string[]]> = [
    ['string column vs number', { $eq: [field('op_name'), lit(5)] }, []],
    ['…null under $not too', { $not: [{ $eq: [field('op_name'), lit(5)] }] }, []],
    ['datetime vs boolean is null', { $eq: [started, lit(true)] }, []],
    ['offset', { $gt: [started, lit('2025-01-01T11:05:00+01:00')] }, ['c-0004']],
    ['naive = UTC', { $gte: [started, lit('2025-01-01T10:05:00')] }, ['c-0003', 'c-0004']],
    ['date-only = midnight', { $gt: [started, lit('2025-01-01')] }, ['c-0001', 'c-0002', 'c-0003', 'c-0004']],
    ['fractional Unix seconds', { $gt: [started, lit(1735725600.25)] }, ['c-0002', 'c-0003', 'c-0004']],
    ['literal on the left', { $lt: [lit('2025-01-01T10:05:00Z'), started] }, ['c-0004']],
    ['ended_at null is null', { $lt: [field('ended_at'), lit('2030-01-01')] }, ['c-0001', 'c-0002', 'c-0003']],
    ['$eq null on a column', { $eq: [field('display_name'), lit(null)] }, ['c-0001', 'c-0002', 'c-0004']],
    ['field vs field, same kind', { $eq: [field('trace_id'), field('id')] }, ['c-0001', 'c-0003', 'c-0004']],
    ['datetime vs datetime', { $gt: [field('ended_at'), started] }, ['c-0001', 'c-0002', 'c-0003']],
    ['dynamic vs dynamic compares text', { $lt: [field('inputs.n'), field('inputs.k')] }, ['c-0002']],
    ['derived latency', { $eq: [field('summary.weave.latency_ms'), lit(2500)] }, ['c-0001']],
    ['derived trace_name prefers display_name', { $eq: [field('summary.weave.trace_name'), lit('chat')] }, ['c-0001']],
    [
      'derived status in a list',
      { $in: [field('summary.weave.status'), [lit('error'), lit('running')]] },
      ['c-0003', 'c-0004'],
    ],
    ['parent_id null', { $eq: [field('parent_id'), lit(null)] }, ['c-0001', 'c-0003', 'c-0004']],
  ];
  for (const [name, e, ids] of cases) assert.deepEqual(await queryIds(h, expr(e)), ids, name);
});
