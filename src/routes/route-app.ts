import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
