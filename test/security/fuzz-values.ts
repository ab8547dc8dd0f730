import fc from 'fast-check';

/**
 * fast-check arbitraries of hostile JSON values for the OpenAPI fuzz test (fuzz-openapi.test.ts):
 * the scalars that break parsers, SQL bindings and size checks, deep nesting, and values built from a
 * route's JSON schema (its OpenAPI document) with hostile leaves, so most requests get past the
 * schema and reach the services.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Strings that have broken servers before: NUL, lone surrogates, refs, SQL, paths, numbers as text. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\ufeff',
  '😀'.repeat(20),
  'ﷺ‮',
  '../../etc/passwd',
  '%00',
  '%zz',
  "'; DROP TABLE calls; --",
  '" OR 1=1 --',
  '%s%n%x',
  '${x}',
  '__proto__',
  'constructor',
  'weave:///',
  'weave:///acme/demo/object/X:',
  'weave:///acme/demo/call/',
  'weave:///other/x/object/X:abc',
  'weave:///acme/demo/table/',
  'wandb-artifact:///acme/demo/x',
  '2025-13-45T99:99:99Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '9'.repeat(40),
  'true',
  'null',
  'acme',
  'acme/',
  '/demo',
  'acme/demo/extra',
  'A/ x',
  'acme/..',
  'other/x',
  'inputs.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1',
  'inputs.a.a.a.a.a.a.a.a',
  'summary.weave.latency_ms',
  '.',
  '..',
  'a..b',
  '$expr',
  '*',
];

/** Any of the nasty strings, generated unicode (lone surrogates included), or a long string. */
export function hostileString(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 6 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme-composite', maxLength: 20 }), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom('a', '\u0000', 'é', '😀', '.', '1.', '%'), fc.integer({ min: 256, max: 70_000 }))
        .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length))),
      weight: 1,
    },
  );
}

const BOUNDARY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  5e-324,
  1e-7,
];

export function hostileNumber(): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS), weight: 4 },
    { arbitrary: fc.integer(), weight: 2 },
    { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 2 },
  );
}

/** `[[[…]]]` or `{"a":{"a":…}}` `depth` levels deep, as a value (stringified by the sender). */
export function deepValue(maxDepth = 3_000): fc.Arbitrary<Json> {
  return fc.tuple(fc.integer({ min: 20, max: maxDepth }), fc.boolean()).map(([depth, arrays]) => {
    let v: Json = 1;
    for (let i = 0; i < depth; i += 1) v = arrays ? [v] : { a: v };
    return v;
  });
}

/** A JSON value of any shape with hostile scalars. */
export const hostileValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.boolean(), weight: 1 },
    { arbitrary: hostileNumber(), weight: 2 },
    { arbitrary: hostileString(), weight: 3 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.dictionary(hostileKey(), tie('value'), { maxKeys: 4 }), weight: 1 },
  ),
})).value;

/** Object keys: operators, prototype names, NUL, empty, dotted. */
export function hostileKey(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('', '__proto__', 'constructor', '$and', '$expr', '$getField', 'a.b', 'a\u0000b', '\ud800', 'id'),
    fc.string({ maxLength: 8 }),
  );
}

/** Schema-valid strings that name what the test seeds (project acme/demo, call sec-call, …). */
const PLAUSIBLE_STRINGS = [
  'acme/demo',
  'acme',
  'demo',
  'sec-call',
  'sec-obj',
  'sec-trace',
  'op',
  'x',
  'latest',
  'weave:///acme/demo/object/sec-obj:latest',
  'weave:///acme/demo/call/sec-call',
  '2025-01-01T10:00:00Z',
  'inputs.x',
  'started_at',
  'id',
];

export interface SchemaContext {
  /** Resolves `#/components/schemas/X`. */
  resolve(ref: string): JsonSchema | undefined;
  /** Arbitraries for named components (the calls query language replaces `QueryOperand`). */
  overrides: Record<string, fc.Arbitrary<Json>>;
}

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
};

function stringFor(schema: JsonSchema, key: string): fc.Arbitrary<string> {
  const plausible: Array<fc.WeightedArbitrary<string>> = [];
  if (key === 'project_id') plausible.push({ arbitrary: fc.constant('acme/demo'), weight: 8 });
  if (schema.format === 'date-time') plausible.push({ arbitrary: fc.date().map(safeIso), weight: 4 });
  if (schema.pattern) {
    try {
      plausible.push({ arbitrary: fc.stringMatching(new RegExp(schema.pattern)), weight: 3 });
    } catch {
      // a pattern JavaScript cannot compile is fuzzed with the other strings
    }
  }
  plausible.push({ arbitrary: fc.constantFrom(...PLAUSIBLE_STRINGS), weight: 3 });
  plausible.push({ arbitrary: hostileString(), weight: 2 });
  return fc.oneof(...plausible);
}

function safeIso(d: Date): string {
  return Number.isNaN(d.getTime()) ? '2025-01-01T00:00:00Z' : d.toISOString();
}

/**
 * Values for `schema`: mostly valid (so the request reaches the service), with hostile strings and
 * boundary numbers at the leaves. `depth` bounds recursion through `$ref`s and nested objects.
 */
export function fromSchema(
  schema: JsonSchema | undefined,
  ctx: SchemaContext,
  key = '',
  depth = 0,
): fc.Arbitrary<Json> {
  if (schema === undefined || depth > 8) return hostileValue;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    const override = ctx.overrides[name];
    if (override) return override;
    return fromSchema(ctx.resolve(schema.$ref), ctx, key, depth + 1);
  }
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0)
    return fc.oneof(...alternatives.map((s) => fromSchema(s, ctx, key, depth + 1)));
  const types = typeof schema.type === 'string' ? [schema.type] : (schema.type ?? []);
  const nonNull = types.filter((t) => t !== 'null');
  if (types.length === 0) return hostileValue;
  if (nonNull.length === 0) return fc.constant(null);
  const arbs = nonNull.map((type) => forType(type, schema, ctx, key, depth));
  if (types.includes('null')) arbs.push(fc.constant(null));
  return fc.oneof(...arbs);
}

function forType(type: string, schema: JsonSchema, ctx: SchemaContext, key: string, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'string':
      return stringFor(schema, key);
    case 'integer':
      return fc.oneof(
        { arbitrary: fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 20, 20) }), weight: 4 },
        { arbitrary: hostileNumber(), weight: 1 },
      );
    case 'number':
      return fc.oneof({ arbitrary: fc.double({ min: 0, max: 100, noNaN: true }), weight: 3 }, hostileNumber());
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items, ctx, key, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 4),
        maxLength: Math.max(Math.min(schema.maxItems ?? 3, 3), Math.min(schema.minItems ?? 0, 4)),
      });
    case 'object':
      return objectFor(schema, ctx, depth);
    default:
      return hostileValue;
  }
}

function objectFor(schema: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<Json> {
  const props = schema.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0) {
    const values =
      typeof schema.additionalProperties === 'object'
        ? fromSchema(schema.additionalProperties, ctx, '', depth + 1)
        : hostileValue;
    return fc.dictionary(fc.oneof(fc.constantFrom('x', 'a', 'inputs', 'gpt-4o'), hostileKey()), values, {
      maxKeys: 3,
    });
  }
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const name of names) model[name] = fromSchema(props[name], ctx, name, depth + 1);
  const requiredKeys = (schema.required ?? []).filter((k) => k in model);
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<Json>;
}

/** Where a mutation lands: the n-th container of the value (objects and arrays, in walk order). */
function containersOf(value: Json): Array<Json[] | { [key: string]: Json }> {
  const out: Array<Json[] | { [key: string]: Json }> = [];
  const walk = (node: Json): void => {
    if (node !== null && typeof node === 'object') {
      out.push(node);
      for (const child of Object.values(node)) walk(child);
    }
  };
  walk(value);
  return out;
}

export interface Mutation {
  kind: 'replace' | 'delete' | 'extra' | 'wrap';
  at: number;
  pick: number;
  value: Json;
  key: string;
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('replace', 'delete', 'extra', 'wrap'),
  at: fc.nat(),
  pick: fc.nat(),
  // shallow enough for structuredClone when a second mutation copies it
  value: fc.oneof({ arbitrary: hostileValue, weight: 4 }, { arbitrary: deepValue(400), weight: 1 }),
  key: hostileKey(),
});

/**
 * `value` with one place changed: a member replaced by a hostile value of another type, removed
 * (a required field goes missing), an unknown member added, or wrapped in an array.
 */
export function applyMutation(value: Json, m: Mutation): Json {
  const copy = structuredClone(value);
  const containers = containersOf(copy);
  if (containers.length === 0) return m.value;
  const target = containers[m.at % containers.length]!;
  const keys = Object.keys(target);
  if (Array.isArray(target)) {
    const i = target.length === 0 ? 0 : m.pick % target.length;
    if (m.kind === 'delete') target.splice(i, 1);
    else if (m.kind === 'extra') target.push(m.value);
    else if (m.kind === 'wrap') target[i] = [target[i] ?? null];
    else target[i] = m.value;
    return copy;
  }
  const name = keys.length === 0 ? m.key : keys[m.pick % keys.length]!;
  if (m.kind === 'delete') delete target[name];
  else if (m.kind === 'extra') target[m.key === name ? `${m.key}_` : m.key] = m.value;
  // own members only: `constructor` or `__proto__` would otherwise pick up Object's
  else if (m.kind === 'wrap') target[name] = [Object.hasOwn(target, name) ? target[name]! : null];
  else target[name] = m.value;
  return copy;
}
