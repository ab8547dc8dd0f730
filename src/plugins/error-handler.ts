import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, OverloadedError, RateLimitedError, RequestValidationError } from '../errors/app-error.js';
import { toValidationDetails } from '../schemas/ajv.js';
import { noteFailure, noteRefused } from './request-log.js';
import type { RouteAccessTable } from './route-access.js';
import { collectRoutes } from './route-table.js';

const CONTEXT_TO_LOC: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/**
 * One place that turns every failure into the service's error bodies: `{"detail": [...]}` for
 * schema failures (422), `{"reason": ...}` for everything else, `{"detail": "Not Found"}` and
 * `{"detail": "Method Not Allowed"}` for unknown routes.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  opts: {
    bodyLimitBytes: number;
    /** Answers browser navigations that match no route (the web app, web-app.ts); false = not handled. */
    htmlFallback?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | false;
    /** What each route needs of the caller's role (routes/route-area.ts `accessTable`). */
    routeAccess: RouteAccessTable;
  },
): void {
  // Registered here because the 405 answer needs it and this runs before any route plugin.
  const routes = collectRoutes(app, opts.routeAccess);
  // Bodies are JSON (docs/spec/README.md, docs/spec/calls.md §0): without Fastify's built-in text/plain parser a body of
  // another type is a 415 instead of a string that fails validation. A route that takes another
  // type (OTel protobuf, multipart files) adds its parser inside its own plugin.
  app.removeContentTypeParser('text/plain');

  app.setNotFoundHandler((request, reply) => {
    const [path = ''] = request.url.split('?');
    const known = routes.some((r) => r.matches(path));
    if (known) return reply.code(405).send({ detail: 'Method Not Allowed' });
    return opts.htmlFallback?.(request, reply) || reply.code(404).send({ detail: 'Not Found' });
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      const where = CONTEXT_TO_LOC[error.validationContext ?? 'body'] ?? 'body';
      const detail = toValidationDetails(error.validation as never, where);
      return sendDetail(
        reply,
        detail.length > 0 ? detail : [{ loc: [where], msg: error.message, type: 'value_error' }],
      );
    }
    if (error instanceof RequestValidationError) {
      request.log.debug({ detail: error.detail }, 'request validation failed');
      return sendDetail(reply, error.detail);
    }
    if (error instanceof AppError) {
      // one line per request: 4xx at debug here, 5xx with the request in plugins/request-log.ts
      if (error.isUserError) request.log.debug({ status: error.status, reason: error.message }, 'request rejected');
      else noteFailure(request, error.cause ?? error);
      if (error.status === 401 && isTrainingRoute(request)) reply.header('www-authenticate', 'Bearer');
      if (error instanceof OverloadedError || error instanceof RateLimitedError) {
        noteRefused(request);
        reply.header('retry-after', String(error.retryAfterSeconds));
      }
      return sendReason(request, reply, error.status, error.message, error.extra);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // A route may set its own limit (uploads); name the one that applied.
        return sendReason(
          request,
          reply,
          413,
          `Request too large: the body exceeds the limit of ${request.routeOptions.bodyLimit ?? opts.bodyLimitBytes} bytes`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendReason(
          request,
          reply,
          415,
          `Unsupported content type: ${request.headers['content-type'] ?? '(none)'}`,
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(422).send({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply
          .code(422)
          .send({ detail: [{ loc: ['body'], msg: `JSON decode error: ${error.message}`, type: 'json_invalid' }] });
    }
    if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
      return reply
        .code(422)
        .send({ detail: [{ loc: ['body'], msg: `JSON decode error: ${error.message}`, type: 'json_invalid' }] });
    }
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // Recursive code (a JSON parser, a digest, a view) ran out of stack on a deeply nested
      // input: the input is at fault, and docs/spec/README.md says never a 500 for bad input.
      request.log.debug({ err: error }, 'input nested too deeply');
      return reply
        .code(422)
        .send({ detail: [{ loc: ['body'], msg: 'Input is nested too deeply', type: 'value_error' }] });
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.debug({ err: error }, 'request rejected');
      return sendReason(request, reply, error.statusCode, error.message);
    }
    noteFailure(request, error);
    return sendReason(request, reply, 500, 'Internal server error');
  });
}

/**
 * A 422 detail list. Items echo the offending `input`; when that cannot be serialised (nested
 * deeper than JSON.stringify's stack allows) the items are sent without it rather than failing.
 */
function sendDetail(reply: FastifyReply, detail: Array<{ input?: unknown }>): FastifyReply {
  let text: string;
  try {
    text = JSON.stringify({ detail });
  } catch {
    text = JSON.stringify({ detail: detail.map(({ input: _input, ...rest }) => rest) });
  }
  return reply.code(422).type('application/json; charset=utf-8').send(text);
}

/** The `/v1/...` training routes answer `{"detail": "..."}`, what their clients read (docs/spec/training.md §1). */
function isTrainingRoute(request: FastifyRequest): boolean {
  return request.url.startsWith('/v1/');
}

/** A non-validation error: `{"reason": …, …extra}` (docs/spec/README.md "Other errors"), `{"detail": …}` on /v1. */
function sendReason(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): FastifyReply {
  const key = isTrainingRoute(request) ? 'detail' : 'reason';
  return reply.code(status).send({ [key]: message, ...extra });
}
