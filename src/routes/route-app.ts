import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

/**
 * The instance a route plugin receives: `request.body`, `params` and `query` take their types from
 * the route's TypeBox schemas, and a handler's return value is checked against its response schema.
 * Types only: validation stays on the app's Ajv instance (`schemas/ajv.ts`, set in `app.ts`).
 */
export type RouteApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * The schema of a route that takes path parameters and a JSON body and answers one 200 shape, the
 * common case of the v2 routes. Routes with a query string or several answers spell theirs out.
 */
export function paramsBodySchema<P extends TSchema, B extends TSchema, R extends TSchema>(
  tag: string,
  summary: string,
  parts: { params: P; body: B; ok: R },
) {
  return { tags: [tag], summary, params: parts.params, body: parts.body, response: { 200: parts.ok } };
}

/** The schema of a route that takes path parameters and a query string and answers one 200 shape. */
export function paramsQuerySchema<P extends TSchema, Q extends TSchema, R extends TSchema>(
  tag: string,
  summary: string,
  parts: { params: P; querystring: Q; ok: R },
) {
  return { tags: [tag], summary, params: parts.params, querystring: parts.querystring, response: { 200: parts.ok } };
}
