import fc from 'fast-check';
import { hostileNumber, hostileString, hostileValue, type Json } from './fuzz-values.js';

/**
 * Hostile expressions of the calls query language (docs/spec/calls.md §5) for the OpenAPI fuzz test:
 * valid operator trees over real and absurd field paths, the shapes issue 17 found to explode the
 * generated SQL (digit-only path segments, nested `$convert`, long `$not` chains), and flat lists
 * past SQLite's limits (`$in` with many literals, a wide `$and`, many sort keys).
 */

const FIELDS = [
  'id',
  'op_name',
  'display_name',
  'trace_id',
  'parent_id',
  'started_at',
  'ended_at',
  'inputs.x',
  'inputs.nested.list',
  'output.y',
  'summary.weave.latency_ms',
  'summary.weave.status',
  'summary.weave.total_tokens',
  'summary.weave.total_cost',
  'attributes.weave.client_version',
  'feedback.[wandb.reaction.1].payload.emoji',
  'wb_user_id',
  'inputs',
  'output',
];

const fieldPath: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...FIELDS), weight: 6 },
  { arbitrary: hostileString(), weight: 2 },
  {
    // digit-only or repeated segments (issue 17: the SQL once grew exponentially with them)
    arbitrary: fc
      .tuple(fc.constantFrom('inputs', 'output', 'attributes', 'summary'), fc.constantFrom('1', 'a', '0', '-1', ''))
      .chain(([root, seg]) => fc.integer({ min: 1, max: 40 }).map((n) => [root, ...Array(n).fill(seg)].join('.'))),
    weight: 1,
  },
);

const literal: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom('o', 'op', 'sec-call', '2025-01-01T00:00:00Z', ''), weight: 3 },
  { arbitrary: hostileNumber(), weight: 2 },
  { arbitrary: hostileString(), weight: 2 },
  { arbitrary: hostileValue, weight: 1 },
);

const CONVERT_TO = ['double', 'string', 'int', 'bool', 'exists'];

/** An operand tree: `$getField`, `$literal`, `$convert` and the boolean and comparison operators. */
export const queryOperand: fc.Arbitrary<Json> = fc.letrec<{ operand: Json }>((tie) => ({
  operand: fc.oneof(
    { depthSize: 'small', withCrossShrink: true, maxDepth: 6 },
    { arbitrary: fieldPath.map((f) => ({ $getField: f })), weight: 4 },
    { arbitrary: literal.map((v) => ({ $literal: v })), weight: 4 },
    {
      arbitrary: fc
        .tuple(tie('operand'), fc.constantFrom(...CONVERT_TO, 'float', 'bogus'))
        .map(([input, to]) => ({ $convert: { input, to } })),
      weight: 1,
    },
    ...['$and', '$or'].map((op) => ({
      arbitrary: fc.array(tie('operand'), { maxLength: 4 }).map((xs) => ({ [op]: xs })),
      weight: 1,
    })),
    { arbitrary: tie('operand').map((x) => ({ $not: [x] })), weight: 1 },
    ...['$eq', '$gt', '$gte'].map((op) => ({
      arbitrary: fc.tuple(tie('operand'), tie('operand')).map((xs) => ({ [op]: xs })),
      weight: 1,
    })),
    {
      arbitrary: fc
        .tuple(tie('operand'), fc.array(tie('operand'), { maxLength: 4 }))
        .map(([x, xs]) => ({ $in: [x, xs] })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(tie('operand'), tie('operand'), fc.option(fc.boolean(), { nil: undefined }))
        .map(([input, substr, ci]): Json => {
          const args: { [key: string]: Json } = { input, substr };
          if (ci !== undefined) args.case_insensitive = ci;
          return { $contains: args };
        }),
      weight: 1,
    },
  ),
})).operand;

/** Shapes past the limits: deep chains, wide lists, nested conversions. */
export const extremeOperand: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: 10, max: 400 }).map((n): Json => {
    let x: Json = { $getField: 'inputs.x' };
    for (let i = 0; i < n; i += 1) x = { $not: [x] };
    return x;
  }),
  fc.integer({ min: 2, max: 30 }).map((n): Json => {
    let x: Json = { $getField: 'inputs.x' };
    for (let i = 0; i < n; i += 1) x = { $convert: { input: x, to: 'bool' } };
    return { $eq: [x, { $literal: true }] };
  }),
  fc.integer({ min: 100, max: 200_000 }).map((n): Json => ({
    $in: [{ $getField: 'id' }, Array.from({ length: n }, (_, i) => ({ $literal: `c${i}` }))],
  })),
  fc.integer({ min: 100, max: 20_000 }).map((n): Json => ({
    $and: Array.from({ length: n }, (_, i): Json => ({ $eq: [{ $getField: 'id' }, { $literal: `c${i}` }] })),
  })),
  fc.integer({ min: 5, max: 200 }).map((n): Json => ({
    $eq: [{ $getField: Array(n).fill('1').join('.') }, { $literal: 1 }],
  })),
);

/** A `query` member: `{$expr: operand}` mostly, otherwise something that is not one. */
export const callsQuery: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: queryOperand.map((e) => ({ $expr: e })), weight: 8 },
  { arbitrary: extremeOperand.map((e) => ({ $expr: e })), weight: 2 },
  { arbitrary: hostileValue, weight: 1 },
);

/** `sort_by` lists: real and hostile fields, odd directions, many keys. */
export const sortBy: fc.Arbitrary<Json> = fc.oneof(
  fc.array(
    fc.record({
      field: fieldPath,
      direction: fc.oneof({ arbitrary: fc.constantFrom('asc', 'desc'), weight: 5 }, hostileString()),
    }),
    { maxLength: 4 },
  ),
  fc
    .integer({ min: 50, max: 2_000 })
    .map((n) => Array.from({ length: n }, (_, i) => ({ field: `inputs.k${i}`, direction: 'asc' }))),
);

/** `expand_columns` and `columns`: nested prefixes (issue 17), hostile paths, many entries. */
export const columnList: fc.Arbitrary<Json> = fc.oneof(
  fc.array(fieldPath, { maxLength: 6 }),
  fc
    .integer({ min: 2, max: 40 })
    .map((n) => Array.from({ length: n }, (_, i) => ['inputs', ...Array(i + 1).fill('a')].join('.'))),
  fc.integer({ min: 100, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => `inputs.c${i}`)),
);

/**
 * A calls-query body (`/calls/stream_query`, `/calls/query`, `/calls/query_stats`, `/calls/export`):
 * the generated schema value with those of `query`, `sort_by` and the column lists that the route
 * declares (`members`) replaced by hostile ones.
 */
export function withHostileQuery(base: fc.Arbitrary<Json>, members: ReadonlySet<string>): fc.Arbitrary<Json> {
  return fc
    .tuple(
      base,
      callsQuery,
      fc.option(sortBy, { nil: undefined }),
      fc.option(columnList, { nil: undefined }),
      fc.option(columnList, { nil: undefined }),
    )
    .map(([body, query, sort, columns, expand]) => {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
      const out: { [key: string]: Json } = { ...body, project_id: 'acme/demo' };
      if (members.has('query')) out.query = query;
      if (sort !== undefined && members.has('sort_by')) out.sort_by = sort;
      if (columns !== undefined && members.has('columns')) out.columns = columns;
      if (expand !== undefined && members.has('expand_columns')) out.expand_columns = expand;
      return out;
    });
}
