import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorRes } from '../schemas/common.js';
import * as S from '../schemas/ui.js';
import type { Services } from '../services/index.js';
import { LIVE_TAIL_BATCH, type LiveTail } from '../services/live-tail-service.js';
import type { RouteApp } from './route-app.js';
import { routeArea } from './route-area.js';

/** How often an open tail polls the store: calls written on any node show up within this (plus a query). */
const POLL_MS = 250;
/** A comment line this often keeps proxies from timing out a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** Reconnection delay the browser is told to use. */
const RETRY_MS = 1000;

/**
 * `GET /calls/live_tail`: Server-Sent Events of calls started, ended or renamed after the stream
 * opened (or after `Last-Event-ID`), in arrival order, polled from the store so writes through
 * any node appear. Every stream ends when the client goes away or the server closes.
 */
export default async function liveTailRoutes(app: RouteApp, { services }: { services: Services }): Promise<void> {
  const open = new Set<{ stop: AbortController; done: Promise<void> }>();
  app.addHook('preClose', async () => {
    const streams = [...open];
    for (const stream of streams) stream.stop.abort();
    await Promise.all(streams.map((stream) => stream.done));
  });

  app.get(
    '/calls/live_tail',
    {
      // a HEAD would open an endless body-less stream
      exposeHeadRoute: false,
      schema: {
        tags: ['Calls'],
        summary: 'Live tail of new and changed calls (Server-Sent Events)',
        querystring: S.LiveTailQuery,
        produces: ['text/event-stream'],
        response: {
          200: {
            description:
              'text/event-stream: `event: call` with the call as /calls/stream_query renders it, `id:` a cursor for Last-Event-ID',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          400: ErrorRes,
          403: ErrorRes,
        },
      },
    },
    async (request, reply) => {
      const lastEventId = request.headers['last-event-id'];
      const tail = await services.liveTail.open(
        request.caller,
        request.query,
        typeof lastEventId === 'string' ? lastEventId : undefined,
      );
      const stop = new AbortController();
      const stream = { stop, done: Promise.resolve() };
      stream.done = runStream(request, reply, tail, stop.signal).finally(() => open.delete(stream));
      open.add(stream);
      await stream.done;
    },
  );
}

async function runStream(
  request: FastifyRequest,
  reply: FastifyReply,
  tail: LiveTail,
  signal: AbortSignal,
): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort);
  res.on('close', onAbort);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    // the connection ends with the stream: never kept alive for another request, so neither a
    // client that went away nor the server's close leaves it open until the keep-alive timeout
    connection: 'close',
  });
  const write = async (text: string): Promise<void> => {
    // once stopped, nothing more is written (an abort listener added now would never fire)
    if (stop.signal.aborted) return;
    if (res.write(text)) return;
    // a client that stopped reading never drains: the server's close (or the client's) must still
    // end the wait (test/routes/live-tail-stalled.test.ts)
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        stop.signal.removeEventListener('abort', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
      stop.signal.addEventListener('abort', done);
    });
  };
  let lastWrite = Date.now();
  try {
    await write(`retry: ${RETRY_MS}\n\n`);
    while (!stop.signal.aborted) {
      const events = await tail.poll();
      for (const event of events) {
        if (stop.signal.aborted) break;
        await write(`id: ${event.id}\nevent: call\ndata: ${event.data}\n\n`);
      }
      if (events.length > 0) lastWrite = Date.now();
      else if (Date.now() - lastWrite >= HEARTBEAT_MS) {
        await write(': heartbeat\n\n');
        lastWrite = Date.now();
      }
      if (events.length < LIVE_TAIL_BATCH)
        await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } catch (error) {
    request.log.warn({ err: error }, 'live tail ended by an error');
  } finally {
    signal.removeEventListener('abort', onAbort);
    res.off('close', onAbort);
    // a client that is not reading would hold what is still buffered, and the server's close, forever
    if (res.writableNeedDrain) res.destroy();
    else if (!res.writableEnded) res.end();
  }
}

/** This file's routes and what each needs of the caller's role (route-area.ts). */
export const liveTailArea = routeArea('live-tail', liveTailRoutes, {
  'GET /calls/live_tail': 'read',
});
