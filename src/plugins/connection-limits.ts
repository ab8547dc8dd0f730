import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from '../config/config.js';
import { installConnectionGate, type ConnectionGateStats } from './connection-gate.js';
import { clientErrorHandler, frameworkErrorHandler, ROUTER_MAX_PARAM_CHARS } from './client-error.js';

/**
 * What one client connection may hold (issue 17): sockets that send nothing, headers trickled a
 * byte at a time, or a body shorter than its Content-Length are answered 408 and closed at the
 * configured timeouts, and the server keeps at most `maxConnections` open, so idle sockets cannot
 * exhaust the process's file descriptors (which made SQLite fail to open a read connection).
 */

/** Longest path segment served; longer ones are 414 (a queue id, entity or project is far shorter). */
export const MAX_PATH_SEGMENT_CHARS = 1_024;

/** The Fastify constructor options that carry the timeouts to Node's HTTP server. */
export function connectionOptions(config: Config): Partial<FastifyServerOptions> {
  return {
    keepAliveTimeout: config.keepAliveTimeoutMs,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    requestTimeout: config.requestTimeoutMs,
    // Node checks the headers and request timeouts on this interval (default 30 s, which let a
    // trickled request line live ~90 s); a pass over the open connections each second is cheap
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
    },
    routerOptions: {
      // the router's own limit answers 414 only on some routes and 404 on others; the hook below
      // decides for every path, so the router's limit sits above anything Node accepts as a URL
      maxParamLength: ROUTER_MAX_PARAM_CHARS,
    },
  } as Partial<FastifyServerOptions>;
}

/**
 * How many refused connections may wait for their 503 at once past the cap: half the descriptors
 * the cap leaves over, less 32 (the store, logs and uploads keep the other half). Each is held for
 * milliseconds, until its request arrived and its answer was written.
 */
export function shedRoom(cap: number, fdLimit: number): number {
  return Math.max(0, Math.floor((fdLimit - cap) / 2) - 32);
}

/**
 * Caps open connections (past the cap a connection is answered 503, plugins/connection-gate.ts)
 * and answers 414 for an over-long path segment, on every route and the 404 handler.
 */
export function registerConnectionLimits(
  app: FastifyInstance,
  config: Config,
  onRefused?: (requestLine: string) => void,
): ConnectionGateStats {
  const stats = installConnectionGate(app.server, {
    cap: config.maxConnections,
    shedRoom: shedRoom(config.maxConnections, config.fdLimit),
    onRefused,
  });
  app.addHook('onRequest', async (request, reply) => {
    const [path = ''] = request.url.split('?', 1);
    if (path.length <= MAX_PATH_SEGMENT_CHARS) return;
    if (path.split('/').some((segment) => segment.length > MAX_PATH_SEGMENT_CHARS)) {
      // the body is not read; Node discards it and keeps the connection usable
      return reply
        .code(414)
        .send({ reason: `URI too long: a path segment is over the limit of ${MAX_PATH_SEGMENT_CHARS} characters` });
    }
  });
  return stats;
}
