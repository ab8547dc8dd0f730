import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ErrorRes, ValidationErrorRes } from '../schemas/common.js';

/**
 * The OpenAPI 3.1 document (`GET /openapi.json`), generated from the route schemas. Components
 * keep the `$id` of shared schemas (`CallSchema`, `Operand`, `HTTPValidationError`) as their name,
 * like the reference's published document, instead of `def-N`.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { version: string }): Promise<void> {
  app.addSchema(ValidationErrorRes);
  app.addSchema(ErrorRes);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Heddle',
        // Listed once; plugins/traces-prefix.ts serves every path under /traces too.
        description:
          'Weave-compatible trace server. Every path also answers under /traces (the Python client default).',
        version: opts.version,
      },
      components: {
        securitySchemes: { basic: { type: 'http', scheme: 'basic' }, bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ basic: [] }, { bearer: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: documentRoute(schema as RouteSchema, route) as FastifySchema,
      url,
    }),
    transformObject: (doc) =>
      toJsonSchema2020(
        'openapiObject' in doc ? doc.openapiObject : doc.swaggerObject,
      ) as ReturnType<SwaggerTransformObject>,
  });
}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; body?: unknown };

/**
 * Per operation: public routes need no credentials, and every operation lists the error bodies
 * the error plugin answers with (422 detail list when it validates input, `reason` otherwise).
 */
function documentRoute(schema: RouteSchema | undefined, route: RouteOptions): RouteSchema | undefined {
  if (schema === undefined || schema.hide === true) return schema;
  const takesInput = schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined;
  const response: Record<string, unknown> = { ...(schema.response ?? {}) };
  // Streams declare no response schema; once error responses are added swagger no longer
  // invents the default 200, so name it here.
  if (!Object.keys(response).some((code) => code.startsWith('2')))
    response['200'] = { description: 'Successful Response' };
  if (takesInput && response['422'] === undefined) {
    response['422'] = { description: 'Validation Error', $ref: 'HTTPValidationError#' };
  }
  if (route.config?.public === true) return { ...schema, response, security: [] };
  if (response['401'] === undefined) response['401'] = { description: 'Missing or unknown API key', $ref: 'ErrorRes#' };
  return { ...schema, response };
}

/**
 * @fastify/swagger copies the route schemas as they are; TypeBox writes tuples in the draft-07
 * form (`items: [a, b]`, `additionalItems`), which OpenAPI 3.1 (JSON Schema 2020-12) spells
 * `prefixItems` / `items`. Everything else passes through unchanged.
 */
export function toJsonSchema2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema2020);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  const source = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    if (key === 'items' && Array.isArray(value)) out.prefixItems = value.map(toJsonSchema2020);
    else if (key === 'additionalItems') continue;
    else out[key] = toJsonSchema2020(value);
  }
  if (Array.isArray(source.items)) {
    const extra = source.additionalItems;
    if (extra !== undefined && extra !== true) out.items = toJsonSchema2020(extra);
  }
  return out;
}
