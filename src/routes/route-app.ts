import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Caller } from '../services/auth-service.js';

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

/** A JSON body route's schemas: the body, the 200 answer, and the OpenAPI summary where it has one. */
export interface BodyRouteSchemas<B extends TSchema, R extends TSchema> {
  body: B;
  ok: R;
  summary?: string;
}

/** A JSON answer checked against `R`, given at once or later. */
type Answer<R extends TSchema> = Static<R> | Promise<Static<R>>;

/**
 * The 200 answer's schema, widened: the answer's type is checked at the service call's signature
 * (`Answer<R>`), so Fastify need not resolve a reply type from a generic schema.
 */
const answers = (ok: TSchema): Record<200, TSchema> => ({ 200: ok });

/**
 * Registers `POST path` routes of the most common shape: the JSON body, checked against `body`, goes
 * with the caller to one service call whose result is the 200 answer, checked against `ok`. Routes
 * with path parameters use `paramsRoutes`; those that stream or write the reply themselves use `app`.
 *
 * @example
 * const post = jsonPost(app, ['Feedback']);
 * post('/feedback/query', { body: S.FeedbackQueryReq, ok: S.FeedbackQueryRes }, (caller, body) =>
 *   feedback.query(caller, body));
 */
export function jsonPost(app: RouteApp, tags: string[]) {
  return function post<B extends TSchema, R extends TSchema>(
    path: string,
    { body, ok, summary }: BodyRouteSchemas<B, R>,
    call: (caller: Caller, body: Static<B>) => Answer<R>,
  ): void {
    const schema = { tags, ...(summary === undefined ? {} : { summary }), body, response: answers(ok) };
    app.post(path, { schema }, (request) => call(request.caller, request.body));
  };
}

/** Runs before the body is validated (`preValidation`), e.g. to give a body that may be absent its default. */
type BeforeValidation = (request: FastifyRequest) => Promise<void>;

/**
 * Registers routes that take path parameters (and a JSON body or a query string), and whose handler
 * is one service call given the caller, the parameters and the body (or query); its result is the
 * 200 answer. The OpenAPI entry carries `tags` and the route's summary.
 *
 * @example
 * const route = paramsRoutes(app, ['Annotation Queues']);
 * route.withBody('PUT', '/annotation_queues/:queue_id',
 *   { summary: 'Annotation Queue Update', params: S.QueueParams, body: S.QueueUpdateReq, ok: S.QueueRes },
 *   (caller, params, body) => queues.update(caller, params.queue_id, body));
 */
export function paramsRoutes(app: RouteApp, tags: string[]) {
  return {
    withBody<P extends TSchema, B extends TSchema, R extends TSchema>(
      method: 'POST' | 'PUT',
      url: string,
      { summary, params, body, ok }: { summary: string; params: P; body: B; ok: R },
      call: (caller: Caller, params: Static<P>, body: Static<B>) => Answer<R>,
      preValidation?: BeforeValidation,
    ): void {
      app.route({
        method,
        url,
        schema: { tags, summary, params, body, response: answers(ok) },
        ...(preValidation === undefined ? {} : { preValidation }),
        handler: (request) => call(request.caller, request.params, request.body),
      });
    },
    withQuery<P extends TSchema, Q extends TSchema, R extends TSchema>(
      method: 'GET' | 'DELETE',
      url: string,
      { summary, params, querystring, ok }: { summary: string; params: P; querystring: Q; ok: R },
      call: (caller: Caller, params: Static<P>, query: Static<Q>) => Answer<R>,
    ): void {
      app.route({
        method,
        url,
        schema: { tags, summary, params, querystring, response: answers(ok) },
        handler: (request) => call(request.caller, request.params, request.query),
      });
    },
    withParams<P extends TSchema, R extends TSchema>(
      method: 'GET' | 'DELETE',
      url: string,
      { summary, params, ok }: { summary: string; params: P; ok: R },
      call: (caller: Caller, params: Static<P>) => Answer<R>,
    ): void {
      app.route({
        method,
        url,
        schema: { tags, summary, params, response: answers(ok) },
        handler: (request) => call(request.caller, request.params),
      });
    },
  };
}
