import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { QUERY_LIMITS } from '../../src/domain/query/limits.js';
import { SQL_BUDGET } from '../../src/store/sql/core/sql-dialect.js';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';

/**
 * Issue 17 "Hold under pressure": requests of a few hundred bytes whose compiled SQL grew
 * exponentially (seconds of CPU on SQLite, a PostgreSQL backend OOM-killed), and requests that hit
 * SQLite's own limits (500). Each answers within a bounded time: 200 with the right rows, or a
 * 400 naming the limit. Runs on both stores (HEDDLE_TEST_STORE=postgres).
 */

/** Generous: the fixed compiler answers in milliseconds; the exponential one took 4–12 s per shape. */
const BOUND_MS = 2_500;

async function app(t: TestContext): Promise<TestApp> {
  const h = await buildTestApp(t);
  const inputs = { a: { a: { a: { x: 1 } } }, n: [[[[[[[[[[[[[[[[[[5]]]]]]]]]]]]]]]]]] };
  await h.post('/call/start', makeStart({ id: 'c1', inputs }));
  return h;
}

async function query(h: TestApp, body: Record<string, unknown>): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const res = await h.post('/calls/stream_query', { project_id: PROJECT, ...body });
  return { status: res.statusCode, body: res.body, ms: performance.now() - started };
}

const field = (path: string): unknown => ({ $getField: path });

test('a path of many numeric segments compiles linearly and still indexes arrays', async (t) => {
  const h = await app(t);
  const path = `inputs.n${'.0'.repeat(18)}`;
  const res = await query(h, { query: { $expr: { $eq: [field(path), { $literal: '5' }] } } });
  assert.equal(res.status, 200, res.body);
  assert.ok(res.ms < BOUND_MS, `${res.ms} ms`);
  assert.equal(res.body.trim().split('\n').length, 1);
  const long = await query(h, { query: { $expr: { $eq: [field(`inputs${'.1'.repeat(40)}`), { $literal: '5' }] } } });
  assert.equal(long.status, 400, long.body);
  assert.match(long.body, new RegExp(`limit is ${QUERY_LIMITS.pathSegments} segments`));
});

test('nested expand_columns levels under a filter stay bounded', async (t) => {
  const h = await app(t);
  const levels = Array.from({ length: 12 }, (_, i) => `inputs${'.a'.repeat(i + 1)}`);
  const res = await query(h, {
    expand_columns: levels,
    query: { $expr: { $eq: [field(`inputs${'.a'.repeat(13)}`), { $literal: 'x' }] } },
  });
  assert.ok(res.status === 200, res.body);
  assert.ok(res.ms < BOUND_MS, `${res.ms} ms`);
  const hit = await query(h, {
    expand_columns: levels.slice(0, 3),
    query: { $expr: { $eq: [field('inputs.a.a.a.x'), { $literal: 1 }] } },
  });
  assert.equal(hit.status, 200, hit.body);
  assert.equal(hit.body.trim().split('\n').length, 1);
  const many = await query(h, { expand_columns: Array.from({ length: 101 }, (_, i) => `inputs.k${i}`) });
  assert.equal(many.status, 400, many.body);
  assert.match(many.body, /expand_columns has 101 entries; the limit is 100/);
});

test('nested $convert to bool stays bounded, and nesting past the depth limit is refused', async (t) => {
  const h = await app(t);
  const nest = (levels: number): unknown => {
    let node: unknown = { $convert: { input: field('inputs.a.a.a.x'), to: 'double' } };
    for (let i = 0; i < levels; i += 1) node = { $convert: { input: node, to: i % 2 ? 'bool' : 'double' } };
    return node;
  };
  const res = await query(h, { query: { $expr: { $eq: [nest(20), { $literal: 1 }] } } });
  assert.equal(res.status, 200, res.body);
  assert.ok(res.ms < BOUND_MS, `${res.ms} ms`);
  assert.equal(res.body.trim().split('\n').length, 1);
  const deep = await query(h, { query: { $expr: { $eq: [nest(30), { $literal: 1 }] } } });
  assert.equal(deep.status, 400, deep.body);
  assert.match(deep.body, new RegExp(`limit of ${QUERY_LIMITS.depth} levels`));
});

test('nested $in on a converted operand stays bounded', async (t) => {
  const h = await app(t);
  let node: unknown = field('inputs.a.a.a.x');
  for (let i = 0; i < 10; i += 1)
    node = { $convert: { input: { $in: [node, [1, 2, 3, 4].map((v) => ({ $literal: v }))] }, to: 'int' } };
  const res = await query(h, { query: { $expr: { $eq: [node, { $literal: 0 }] } } });
  assert.equal(res.status, 200, res.body);
  assert.ok(res.ms < BOUND_MS, `${res.ms} ms`);
});

test('a query whose SQL passes the budget is refused with a 400 naming the limit', async (t) => {
  const h = await app(t);
  // within every structural limit, but 3,000 long paths through 30 expand levels each
  const levels = Array.from({ length: 30 }, (_, i) => `inputs${'.a'.repeat(i + 1)}`);
  const deepField = field(`inputs${'.a'.repeat(31)}`);
  const args = Array.from({ length: 3_000 }, () => ({ $eq: [deepField, { $literal: 'x' }] }));
  const res = await query(h, { expand_columns: levels, query: { $expr: { $or: args } } });
  assert.equal(res.status, 400, res.body);
  assert.match(res.body, new RegExp(`limit of ${SQL_BUDGET.chars} characters`));
  assert.ok(res.ms < BOUND_MS * 2, `${res.ms} ms`);
});

test('SQLite-sized inputs answer 400 naming the limit on both stores', async (t) => {
  const h = await app(t);
  const nul = await query(h, { query: { $expr: { $eq: [field('inputs.a\u0000b'), { $literal: 1 }] } } });
  assert.equal(nul.status, 400, nul.body);
  assert.match(nul.body, /NUL/);
  const bigIn = await query(h, {
    query: { $expr: { $in: [field('inputs.a'), Array.from({ length: 200_000 }, (_, i) => ({ $literal: i }))] } },
  });
  assert.equal(bigIn.status, 400, bigIn.body);
  assert.match(bigIn.body, new RegExp(`\\$in has 200000 entries; the limit is ${QUERY_LIMITS.listItems}`));
  const sorts = await query(h, {
    sort_by: Array.from({ length: 1_000 }, (_, i) => ({ field: `inputs.k${i}`, direction: 'asc' })),
  });
  assert.equal(sorts.status, 400, sorts.body);
  assert.match(sorts.body, new RegExp(`sort_by has 1000 entries; the limit is ${QUERY_LIMITS.sortKeys}`));
  const flat = await query(h, {
    query: { $expr: { $and: Array.from({ length: 20_000 }, () => ({ $eq: [field('inputs.a'), { $literal: 1 }] })) } },
  });
  assert.equal(flat.status, 400, flat.body);
  assert.match(flat.body, new RegExp(`\\$and has 20000 entries; the limit is ${QUERY_LIMITS.listItems}`));
  // just under the limits: a flat $and deeper than SQLite's 1,000-level expression limit still answers
  const wide = await query(h, {
    query: {
      $expr: { $and: Array.from({ length: 3_000 }, (_, i) => ({ $gte: [field('inputs.a.a.a.x'), { $literal: -i }] })) },
    },
  });
  assert.equal(wide.status, 200, wide.body);
  assert.equal(wide.body.trim().split('\n').length, 1);
});
