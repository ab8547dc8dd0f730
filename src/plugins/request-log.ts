import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TraceStore } from '../store/types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A server-side failure (5xx) the error handler answered; logged once, with the request, on response. */
    failure: unknown;
    /** Refused for load (503 back-pressure, 429 rate limit): counted, logged at debug, never one error line each. */
    refused: boolean;
  }
}

export interface RequestLogOptions {
  /** A request taking longer is logged at warn. */
  slowMs: number;
  /** Seconds between summary lines (only when something happened); 0: none. */
  summarySeconds: number;
}

/** The error handler hands 5xx errors here instead of logging them, so a request is one line. */
export function noteFailure(request: FastifyRequest, error: unknown): void {
  request.failure = error;
}

/** The error handler marks a request refused for load (plugins/overload.ts). */
export function noteRefused(request: FastifyRequest): void {
  request.refused = true;
}

/** What happened since the last summary line. */
export class RequestActivity {
  requests = 0;
  serverErrors = 0;
  clientErrors = new Map<number, number>();
  slow = 0;
  slowestMs = 0;
  callsStored = 0;
  /** Answered 429 or 503 by the load bounds. */
  refused = 0;

  /** This period's counts; the counters start again from zero. */
  take(): RequestActivity {
    const taken = Object.assign(new RequestActivity(), this);
    Object.assign(this, new RequestActivity());
    return taken;
  }
}

/**
 * Quiet request logs (Fastify's own two lines per request are off, app.ts). At `info` a request
 * gets a line only when it failed on our side (5xx, at error, with the error) or was slow (at
 * warn); a 4xx is the client's business and gets a line at `debug`, where every request gets one.
 * A summary line every `summarySeconds` (when anything happened) counts requests, calls stored,
 * client and server errors.
 */
export function registerRequestLog(app: FastifyInstance, opts: RequestLogOptions, counters: RequestActivity): void {
  app.decorateRequest('failure', null);
  app.decorateRequest('refused', false);
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode;
    const ms = Math.round(reply.elapsedTime);
    counters.requests += 1;
    counters.slowestMs = Math.max(counters.slowestMs, ms);
    const line = { method: request.method, url: request.originalUrl ?? request.url, status, ms };
    if (request.refused) {
      // a flood refused at the bounds would otherwise log one error line per request it sent
      counters.refused += 1;
      request.log.debug(line, 'request refused for load');
    } else if (status >= 500) {
      counters.serverErrors += 1;
      request.log.error({ ...line, err: request.failure ?? undefined }, 'request failed');
    } else if (ms >= opts.slowMs) {
      counters.slow += 1;
      request.log.warn(line, 'slow request');
    } else {
      request.log.debug(line, status >= 400 ? 'request rejected' : 'request');
    }
    if (status >= 400 && status < 500 && !request.refused)
      counters.clientErrors.set(status, (counters.clientErrors.get(status) ?? 0) + 1);
  });
  if (opts.summarySeconds > 0) {
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        const c = counters.take();
        if (c.requests === 0 && c.callsStored === 0) return;
        app.log.info(summaryFields(c, opts.summarySeconds), summaryText(c, opts.summarySeconds));
      }, opts.summarySeconds * 1000);
      timer.unref();
    });
    app.addHook('onClose', async () => clearInterval(timer));
  }
}

function summaryFields(c: RequestActivity, seconds: number): Record<string, unknown> {
  return {
    summary_seconds: seconds,
    requests: c.requests,
    calls_stored: c.callsStored,
    server_errors: c.serverErrors,
    client_errors: Object.fromEntries(c.clientErrors),
    slow_requests: c.slow,
    refused_for_load: c.refused,
    slowest_ms: c.slowestMs,
  };
}

export function summaryText(c: RequestActivity, seconds: number): string {
  const clientErrors = [...c.clientErrors].reduce((n, [, k]) => n + k, 0);
  const byStatus = [...c.clientErrors]
    .sort((a, b) => a[0] - b[0])
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return (
    `last ${seconds}s: ${c.requests} requests, ${c.callsStored} calls stored, ${c.serverErrors} server errors, ` +
    `${clientErrors} client errors${byStatus ? ` (${byStatus})` : ''}, ${c.slow} slow, slowest ${c.slowestMs} ms` +
    (c.refused > 0 ? `, ${c.refused} refused for load (429/503)` : '')
  );
}

/**
 * The store as the services see it, counting stored calls (start parts written) for the summary.
 * Everything else passes through to the store itself, bound to it (the adapters keep `#private` state).
 */
export function countingCallWrites(store: TraceStore, onCalls: (n: number) => void): TraceStore {
  const calls = new Proxy(store.calls, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop === 'write') {
        const write = value as TraceStore['calls']['write'];
        return async (parts: Parameters<TraceStore['calls']['write']>[0]) => {
          await write.call(target, parts);
          onCalls(parts.filter((p) => p.kind === 'start').length);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'calls') return calls;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
