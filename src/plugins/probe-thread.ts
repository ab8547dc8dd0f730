import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The probe listener's thread (plugins/probe-port.ts): answers `GET /health` and `GET /version` on
 * its own port from its own event loop, so a burst or a slowloris on the API port, which queue
 * behind the main thread's work, never delays a load balancer's check. The main thread publishes
 * its health report and beats a shared clock; a beat older than `stallMs` means the API's event
 * loop is stuck, and /health says so with a 503.
 */

export interface ProbeThreadData {
  host: string;
  port: number;
  version: string;
  stallMs: number;
  /** BigInt64Array over it: [0] the main thread's last beat, epoch milliseconds. */
  beat: SharedArrayBuffer;
  /** The main thread's health report when the thread starts (later ones arrive as messages). */
  health: HealthReport;
}

export type HealthReport = { status: 'ok' } | { status: 'degraded'; reasons: string[] };

/** Main thread → this thread. */
export type ProbeMessage = { health: HealthReport } | { stop: true };
/** This thread → main. */
export type ProbeReply = { listening: number } | { failed: string; code?: string } | { stopped: true };

const data = workerData as ProbeThreadData;
const beat = new BigInt64Array(data.beat);
let health: HealthReport = data.health;

function send(res: http.ServerResponse, status: number, body: unknown, head: boolean): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(head ? undefined : text);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0];
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) return send(res, 405, { reason: `${req.method} is not served here` }, head);
  if (path === '/version') return send(res, 200, { version: data.version }, head);
  if (path !== '/health') return send(res, 404, { reason: 'The probe port serves GET /health and /version' }, head);
  const silentMs = Date.now() - Number(Atomics.load(beat, 0));
  if (silentMs > data.stallMs) {
    const reason = `unresponsive: the API's event loop has not run for ${silentMs} ms (limit ${data.stallMs} ms)`;
    return send(res, 503, { status: 'unresponsive', reasons: [reason] }, head);
  }
  send(res, 200, health, head);
}

const server = http.createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, answer);
server.keepAliveTimeout = 5_000;
server.on('error', (error: NodeJS.ErrnoException) => {
  parentPort!.postMessage({ failed: error.message, code: error.code } satisfies ProbeReply);
});
parentPort!.on('message', (message: ProbeMessage) => {
  if ('health' in message) health = message.health;
  else {
    server.close(() => parentPort!.postMessage({ stopped: true } satisfies ProbeReply));
    server.closeAllConnections();
  }
});
server.listen({ host: data.host, port: data.port }, () => {
  const address = server.address();
  parentPort!.postMessage({ listening: typeof address === 'object' && address ? address.port : data.port });
});
