// The web app's API types, generated from the server's own /openapi.json (issue 32): every path's
// JSON request body and 200 answer as TypeScript types, so the web client (web/src/api/client.ts)
// only sends bodies the server's schemas accept. test/unit/web-api-types.test.ts fails when the
// committed file differs from what the server describes now.
//
//   tsx scripts/web-api-types.ts      rewrites web/src/api/openapi.gen.ts from a server built in process
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The part of a JSON Schema (as TypeBox writes it into /openapi.json) that becomes a type. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema | Schema[];
  prefixItems?: Schema[];
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDoc {
  components?: { schemas?: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
}

export const GENERATED_FILE = 'web/src/api/openapi.gen.ts';

const literal = (value: unknown): string => JSON.stringify(value);
const key = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const pad = (depth: number): string => '  '.repeat(depth);

/** The TypeScript type of `schema`, indented for `depth`. */
export function typeOf(schema: Schema | boolean | undefined, depth = 0): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) return `ApiSchemas[${literal(schema.$ref.replace('#/components/schemas/', ''))}]`;
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => typeOf(s, depth)).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => wrap(typeOf(s, depth))).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, depth) : 'unknown';
  return types.map((t) => typeOfKind(t, schema, depth)).join(' | ');
}

/** A member of an intersection: a union in it needs parentheses. */
const wrap = (type: string): string => (type.includes(' | ') ? `(${type})` : type);

function typeOfKind(kind: string, schema: Schema, depth: number): string {
  switch (kind) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (schema.prefixItems) return `[${schema.prefixItems.map((s) => typeOf(s, depth)).join(', ')}]`;
      if (Array.isArray(schema.items)) return `[${schema.items.map((s) => typeOf(s, depth)).join(', ')}]`;
      return `Array<${typeOf(schema.items, depth)}>`;
    }
    case 'object':
      return objectType(schema, depth);
    default:
      return 'unknown';
  }
}

function objectType(schema: Schema, depth: number): string {
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties ?? {}).map(
    ([name, prop]) => `${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(prop, depth + 1)};`,
  );
  const extra =
    schema.additionalProperties ?? (schema.patternProperties ? Object.values(schema.patternProperties)[0] : undefined);
  if (extra !== undefined && extra !== false)
    lines.push(`${pad(depth + 1)}[key: string]: ${typeOf(extra, depth + 1)};`);
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

const jsonSchema = (content: Record<string, { schema?: Schema }> | undefined): Schema | undefined =>
  content?.['application/json']?.schema;

/** The generated module: `ApiSchemas` (components), `ApiPaths` (each operation's body and 200 answer), `ApiPost`. */
export function renderApiTypes(doc: OpenApiDoc): string {
  const out = [
    "// Generated from the server's /openapi.json by scripts/web-api-types.ts: do not edit.",
    '// `npx tsx scripts/web-api-types.ts` rewrites it; test/unit/web-api-types.test.ts fails when it is stale.',
    '',
    'export interface ApiSchemas {',
  ];
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b)))
    out.push(`  ${key(name)}: ${typeOf(schema, 1)};`);
  out.push('}', '', '/** Each path (OpenAPI template) and method: the JSON body it takes and its 200 answer. */');
  out.push('export interface ApiPaths {');
  for (const [route, operations] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`  ${literal(route)}: {`);
    for (const [method, op] of Object.entries(operations).sort(([a], [b]) => a.localeCompare(b))) {
      const body = jsonSchema(op.requestBody?.content);
      const ok = jsonSchema(op.responses?.['200']?.content);
      out.push(`    ${method}: {`);
      out.push(`      body: ${body ? typeOf(body, 3) : 'never'};`);
      out.push(`      response: ${ok ? typeOf(ok, 3) : 'unknown'};`);
      out.push('    };');
    }
    out.push('  };');
  }
  out.push('}', '');
  out.push(
    '/**',
    ' * `postJson` and `postJsonl` (client.ts): one signature per POST path with a JSON body, the path a',
    " * template (`{id}` is any text), so a body the server's schema would refuse does not compile.",
    ' */',
    'export interface ApiPost<R> {',
  );
  for (const [route, operations] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
    if (!jsonSchema(operations.post?.requestBody?.content)) continue;
    const template = '`' + route.replace(/\{[^}]+\}/g, '${string}') + '`';
    out.push(
      `  <T>(path: ${template}, body: ApiPaths[${literal(route)}]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;`,
    );
  }
  out.push('}', '');
  return out.join('\n');
}

/** The server's /openapi.json, from an app built in process on a throwaway store. */
export async function currentOpenApi(): Promise<OpenApiDoc> {
  const { buildTestApp } = await import('../test/helpers/app.js');
  const cleanups: Array<() => unknown> = [];
  const app = await buildTestApp({ after: (fn: () => unknown) => void cleanups.push(fn) });
  try {
    return (await app.get('/openapi.json', null)).json() as OpenApiDoc;
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(fileURLToPath(import.meta.url))) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  writeFileSync(path.join(root, GENERATED_FILE), renderApiTypes(await currentOpenApi()));
  console.log(`wrote ${GENERATED_FILE}`);
  process.exit(0);
}
