import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The answer to a request Node's HTTP parser refuses before any route sees it (a request line or
 * headers over `http.maxHeaderSize`, bytes that are not HTTP, a timeout). Fastify's default writes
 * the status without `Connection: close` and then destroys the socket, so a keep-alive client (the
 * Python clients' connection pools) reuses a socket that is gone and sees a reset on its next,
 * valid request (found by test/security/fuzz-openapi.test.ts). This one says `Connection: close`
 * and answers in the service-wide error shape (`{"reason": …}`, /work/shared/STYLE.md "Errors").
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // a reset socket is already gone (https://nodejs.org/api/http.html#event-clienterror)
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status: number;
  let reason: string;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    reason = 'Request timeout: the request was not received in time';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    reason = `Request header fields too large: the request line and headers are over ${http.maxHeaderSize} bytes`;
  } else {
    status = 400;
    reason = `Malformed HTTP request${err.code ? ` (${err.code})` : ''}`;
  }
  this.log.debug({ err }, 'client error');
  const body = JSON.stringify({ reason });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

/** The router's own cap on one path parameter (Fastify's `maxParamLength`); see connection-limits.ts. */
export const ROUTER_MAX_PARAM_CHARS = 65_536;

/** How much of a malformed URL the reason repeats. */
const URL_ECHO_CHARS = 200;

/**
 * Errors Fastify's router raises before a route runs. A path with a broken percent-escape
 * (`/objs/%zz/aliases`) was answered in Fastify's own shape (`{"error","code","message"}`) without a
 * `reason` (found by test/security/fuzz-openapi.test.ts); it is a 400 with one. A path parameter
 * past the router's cap is a 414 with one, like the shorter over-long segments of connection-limits.ts.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.code === 'FST_ERR_BAD_URL') {
    const url = request.url.length > URL_ECHO_CHARS ? `${request.url.slice(0, URL_ECHO_CHARS)}…` : request.url;
    return reply.code(400).send({ reason: `Malformed URL: ${JSON.stringify(url)} is not valid percent-encoded UTF-8` });
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return reply
      .code(414)
      .send({ reason: `URI too long: a path parameter is over the limit of ${ROUTER_MAX_PARAM_CHARS} characters` });
  request.log.error({ err: error }, 'framework error');
  return reply.code(500).send({ reason: 'Internal server error' });
}
