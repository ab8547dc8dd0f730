import fc from 'fast-check';
import { withHostileQuery } from './fuzz-query.js';
import {
  applyMutation,
  deepValue,
  fromSchema,
  hostileString,
  hostileValue,
  mutationArb,
  type Json,
  type JsonSchema,
  type SchemaContext,
} from './fuzz-values.js';

/**
 * Builds, from one operation of `/openapi.json`, a fast-check arbitrary of whole HTTP requests:
 * path and query parameters, headers (credentials, content type) and a body that is valid, mutated,
 * of the wrong shape or not JSON at all. Used by fuzz-openapi.test.ts.
 */

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** The answer is an event stream: read its first bytes only. */
  eventStream?: boolean;
}

export interface Operation {
  method: string;
  /** OpenAPI path (`/v2/{entity}/{project}/ops`). */
  path: string;
  parameters: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
  /** Request body schemas by content type. */
  body: Record<string, JsonSchema | undefined>;
  /** A valid body to mutate, for routes left out of the document (no schema to generate from). */
  example?: Json;
}

export interface Credentials {
  /** Authorization header of the project's owner. */
  owner: string;
  /** Authorization header of a user of another entity. */
  stranger: string;
}

/** Routes that take a calls query (docs/spec/calls.md §5). */
const QUERY_ROUTES = new Set(['/calls/stream_query', '/calls/query', '/calls/query_stats', '/calls/export']);

const PATH_VALUES: Record<string, string[]> = {
  entity: ['acme'],
  project: ['demo'],
  object_id: ['sec-obj', 'sec-x'],
  digest: ['latest', 'v0'],
  queue_id: ['sec-q'],
  item_id: ['sec-i'],
  partner: ['coreweave', 'x'],
  model_id: ['sec-model'],
  training_job_id: ['sec-job'],
  job_id: ['sec-job'],
};

/** Percent-encodes the UTF-8 bytes of `s` (a lone surrogate becomes U+FFFD, as any client would send it). */
export function encode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function pathParam(name: string): fc.Arbitrary<string> {
  const plausible = PATH_VALUES[name] ?? ['0195a1c2-0000-7000-8000-000000000000', 'sec-x'];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...plausible).map(encode), weight: 8 },
    { arbitrary: hostileString().map(encode), weight: 3 },
    { arbitrary: fc.constantFrom('%zz', '%', '..', '.', '%2e%2e', '%00', '%ff%fe', 'a%2Fb'), weight: 1 },
    // over-long path segments answer 414 (test/routes/connections.test.ts)
    { arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'p'.repeat(n)), weight: 1 },
  );
}

function queryValue(name: string, schema: JsonSchema | undefined, ctx: SchemaContext): fc.Arbitrary<string> {
  const plausible: fc.Arbitrary<string> =
    name === 'project_id'
      ? fc.constant('acme/demo')
      : fromSchema(schema, ctx, name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return fc.oneof(
    { arbitrary: plausible, weight: 6 },
    { arbitrary: hostileString(), weight: 2 },
    { arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? ''), weight: 1 },
  );
}

function queryString(op: Operation, ctx: SchemaContext): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const pairs = params.map((p) =>
    fc.option(
      fc
        .tuple(queryValue(p.name, p.schema, ctx), fc.nat(9))
        .map(([v, dup]) => (dup === 0 ? [v, v] : [v]).map((x) => `${p.name}=${encode(x)}`).join('&')),
      { nil: undefined, freq: p.required ? 10 : 3 },
    ),
  );
  const extra = fc.option(
    fc.oneof(
      fc.constantFrom('unknown=1', '%zz=1', '&&&', 'a[b]=1', '__proto__[x]=1', '=', 'x'),
      hostileString().map((s) => `x=${encode(s)}`),
    ),
    { freq: 6, nil: undefined },
  );
  return fc.tuple(fc.tuple(...pairs), extra).map(([ps, ex]) => {
    const parts = [...ps, ex].filter((x): x is string => x !== undefined && x !== '');
    return parts.length === 0 ? '' : `?${parts.join('&')}`;
  });
}

const BAD_JSON = [
  '',
  ' ',
  '{',
  '}',
  '[',
  'null',
  '"a string"',
  '42',
  'true',
  '{"a":}',
  "{'single': 'quotes'}",
  '{"a":1,}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1e999999}',
  '{"a":-}',
  '\u0000',
  '\ufeff{}',
  '{"project_id":"acme/demo","project_id":7}',
  '{"__proto__":{"polluted":true},"project_id":"acme/demo"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\x41"}',
];

/** Text that is not JSON, or JSON of a hostile shape, built around a valid body `json`. */
function rawJson(valid: fc.Arbitrary<Json>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...BAD_JSON),
    fc.tuple(valid, fc.nat()).map(([v, n]) => {
      const text = JSON.stringify(v) ?? '';
      return text.slice(0, n % Math.max(1, text.length));
    }),
    fc.integer({ min: 1_000, max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.integer({ min: 1_000, max: 50_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  );
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json, text/plain',
  'application/x-protobuf',
  ';;;',
  'application/vnd.api+json',
];

/** A JSON body: valid per the schema, one place mutated, any shape, deeply nested, or not JSON. */
function jsonBody(op: Operation, schema: JsonSchema | undefined, ctx: SchemaContext): fc.Arbitrary<[string, string]> {
  let valid = schema === undefined && op.example !== undefined ? fc.constant(op.example) : fromSchema(schema, ctx);
  if (QUERY_ROUTES.has(op.path)) valid = withHostileQuery(valid, new Set(Object.keys(schema?.properties ?? {})));
  const text: fc.Arbitrary<string> = fc.oneof(
    { arbitrary: valid.map((v) => JSON.stringify(v) ?? 'null'), weight: 10 },
    {
      arbitrary: fc.tuple(valid, mutationArb).map(([v, m]) => JSON.stringify(applyMutation(v, m)) ?? 'null'),
      weight: 7,
    },
    {
      arbitrary: fc
        .tuple(valid, mutationArb, mutationArb)
        .map(([v, m1, m2]) => JSON.stringify(applyMutation(applyMutation(v, m1), m2)) ?? 'null'),
      weight: 2,
    },
    { arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null'), weight: 2 },
    { arbitrary: deepValue().map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: rawJson(valid), weight: 3 },
  );
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 20 },
    { arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES), weight: 1 },
  );
  return fc.tuple(text, contentType);
}

/** A multipart upload (`/file/create`): well formed, with hostile fields, or broken. */
function multipartBody(): fc.Arbitrary<[string, string]> {
  const boundary = 'fuzz-boundary';
  const part = fc.tuple(
    fc.constantFrom('project_id', 'file', 'other', ''),
    fc.oneof(fc.constant('acme/demo'), hostileString()),
    fc.option(fc.oneof(fc.constant('a.txt'), hostileString()), { nil: undefined }),
  );
  const well = fc.array(part, { maxLength: 4 }).map((parts) => {
    const body = parts
      .map(([name, value, filename]) => {
        const disp = `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
        return `--${boundary}\r\nContent-Disposition: ${disp}\r\n\r\n${value}\r\n`;
      })
      .join('');
    return `${body}--${boundary}--\r\n`;
  });
  const broken = fc.oneof(
    fc.constantFrom('', `--${boundary}`, `--${boundary}\r\n\r\n`, 'not multipart', `--other\r\n--other--\r\n`),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  const contentType = fc.oneof(
    { arbitrary: fc.constant(`multipart/form-data; boundary=${boundary}`), weight: 10 },
    fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=', 'application/json', 'text/plain'),
  );
  return fc.tuple(fc.oneof({ arbitrary: well, weight: 4 }, broken), contentType);
}

/** An OTLP body: JSON per the schema (or hostile), or protobuf bytes that are mostly garbage. */
function otlpBody(
  op: Operation,
  schema: JsonSchema | undefined,
  ctx: SchemaContext,
): fc.Arbitrary<[string | Buffer, string]> {
  const proto = fc
    .uint8Array({ maxLength: 400 })
    .map((b): [Buffer, string] => [Buffer.from(b), 'application/x-protobuf']);
  return fc.oneof(jsonBody(op, schema, ctx), proto);
}

function headersArb(creds: Credentials): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    { arbitrary: fc.constant({ authorization: creds.owner }), weight: 40 },
    { arbitrary: fc.constant({ authorization: creds.stranger }), weight: 2 },
    { arbitrary: fc.constant({}), weight: 2 },
    {
      arbitrary: fc
        .oneof(
          fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Bearer x', 'Basic YXBpOg==', 'Basic ' + 'A'.repeat(10_000)),
          hostileString().map((s) => `Basic ${Buffer.from(`api:${s}`).toString('base64')}`),
        )
        .map((authorization) => ({ authorization })),
      weight: 2,
    },
  );
}

/** Every request shape for one operation. */
export function requestArb(op: Operation, ctx: SchemaContext, creds: Credentials): fc.Arbitrary<FuzzRequest> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const params = fc.tuple(...names.map(pathParam));
  const url = fc.tuple(params, queryString(op, ctx)).map(([values, qs]) => {
    let i = 0;
    return op.path.replace(/\{[^}]+\}/g, () => values[i++]!) + qs;
  });
  const types = Object.keys(op.body);
  let body: fc.Arbitrary<[string | Buffer, string] | undefined> = fc.constant(undefined);
  if (types.includes('multipart/form-data')) body = multipartBody();
  else if (types.includes('application/x-protobuf')) body = otlpBody(op, op.body['application/json'], ctx);
  else if (types.includes('application/json')) body = jsonBody(op, op.body['application/json'], ctx);
  return fc.tuple(url, headersArb(creds), body).map(([u, headers, b]) => {
    const request: FuzzRequest = { method: op.method, url: u, headers: { ...headers } };
    if (b !== undefined) {
      request.payload = b[0];
      if (b[1] !== '') request.headers['content-type'] = b[1];
    }
    if (op.path === '/calls/live_tail') request.eventStream = true;
    return request;
  });
}
