import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Refusal before the framework (issue 35). When the in-flight bound is reached, a request is
 * answered 503 from Node's `request` event, without routing, hooks or the error handler: a burst's
 * refusals then cost the event loop a few microseconds each, so the probes (`/health`,
 * `/version`) that arrive among them are not queued behind their work. The same answer as
 * plugins/overload.ts gives (which still refuses what gets past this, e.g. for the store's queue).
 */

/** The probe paths, never refused here (with and without the `/traces` prefix the router strips). */
const PROBES = new Set(['/health', '/v1/health', '/version', '/traces/health', '/traces/version']);

export function installEarlyShed(
  server: Server,
  settings: {
    maxInFlight: number;
    inFlight: () => number;
    /** Counted and logged at debug, as plugins/request-log.ts does for the other refusals. */
    onRefused?: (method: string, url: string) => void;
  },
): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const count = settings.inFlight();
    if (count >= settings.maxInFlight && !PROBES.has((req.url ?? '/').split('?', 1)[0]!)) {
      settings.onRefused?.(req.method ?? 'GET', req.url ?? '/');
      const body = JSON.stringify({
        reason: `Server busy: ${count} requests in flight (limit ${settings.maxInFlight}); retry later`,
      });
      // the body is not read; Node discards it, and the connection closes after the answer
      res.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'retry-after': '1',
        connection: 'close',
      });
      res.end(body);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}
