import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connection cap that answers (issue 35). Node's `server.maxConnections` closes a connection
 * past the cap on arrival, without a status: a burst of 2,000 clients against 768 connections left
 * 1,234 of them with a reset. Here, past `cap`:
 *
 * 1. a connection that has been open for over a second without completing a request's headers
 *    (a trickling slowloris client, a silent socket) is answered 408 and closed to make room, so
 *    slow clients cannot keep `/health` probes out;
 * 2. otherwise the new connection is answered 503 with `Retry-After` (after its request arrived,
 *    so the client reads it as the answer) and closed; those cost a descriptor each for a moment,
 *    and at most `shedRoom` are held at once;
 * 3. past that too, it is closed on arrival, as Node would (the file descriptors are then nearly
 *    spent).
 */

/** A connection younger than this is never evicted: a burst's clients are still sending their headers. */
const EVICT_AFTER_MS = 1_000;
/** How long a refused connection may stay open for its request to arrive and the answer to be read. */
const SHED_LINGER_MS = 2_000;

export interface ConnectionGateStats {
  /** Connections answered 503 at the cap. */
  refused: number;
  /** Slow connections answered 408 to make room. */
  evicted: number;
  /** Connections closed on arrival past the cap and the refusal room. */
  dropped: number;
}

interface Tracked {
  at: number;
  /** A request's headers arrived on it (Node emitted 'request'). */
  served: boolean;
}

/**
 * Takes over the server's 'connection' listeners (Node's HTTP parser among them) so a connection
 * past the cap never reaches the parser. Call before listening.
 */
export function installConnectionGate(
  server: Server,
  settings: {
    cap: number;
    shedRoom: number;
    /** With the refused request's first line (at most 200 characters), once it arrived. */
    onRefused?: (requestLine: string) => void;
  },
  now: () => number = Date.now,
): ConnectionGateStats {
  const stats: ConnectionGateStats = { refused: 0, evicted: 0, dropped: 0 };
  const open = new Map<Socket, Tracked>();
  let shedding = 0;
  const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('request', (req: { socket: Socket }) => {
    const tracked = open.get(req.socket);
    if (tracked) tracked.served = true;
  });
  server.on('connection', (socket: Socket) => {
    if (open.size >= settings.cap && !evictOne(open, now())) {
      if (shedding >= settings.shedRoom) {
        stats.dropped += 1;
        socket.destroy();
        return;
      }
      stats.refused += 1;
      shedding += 1;
      refuse(
        socket,
        settings.cap,
        (line) => settings.onRefused?.(line),
        () => (shedding -= 1),
      );
      return;
    }
    open.set(socket, { at: now(), served: false });
    socket.once('close', () => open.delete(socket));
    for (const listener of listeners) listener.call(server, socket);
  });

  function evictOne(sockets: Map<Socket, Tracked>, at: number): boolean {
    // a Map iterates in insertion order: the oldest connections first
    for (const [socket, tracked] of sockets) {
      if (at - tracked.at < EVICT_AFTER_MS) return false;
      if (tracked.served) continue;
      sockets.delete(socket);
      stats.evicted += 1;
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.resume();
      setTimeout(() => socket.destroy(), SHED_LINGER_MS).unref();
      return true;
    }
    return false;
  }
  return stats;
}

function refuse(socket: Socket, cap: number, refused: (requestLine: string) => void, done: () => void): void {
  const body = JSON.stringify({ reason: `Server busy: ${cap} connections open (limit ${cap}); retry later` });
  const answer =
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\n' +
    `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  let answered = false;
  const send = (chunk?: Buffer): void => {
    if (answered) return;
    answered = true;
    refused(chunk ? chunk.toString('latin1', 0, Math.min(chunk.length, 200)).split('\r\n', 1)[0]! : '');
    // half-close: what the client still sends is read and dropped, so closing never resets a
    // connection whose unread request would make the kernel answer RST instead of FIN
    socket.end(answer);
  };
  const linger = setTimeout(() => {
    send();
    socket.destroy();
  }, SHED_LINGER_MS);
  linger.unref();
  socket.on('error', () => socket.destroy());
  socket.on('data', send);
  socket.once('end', () => socket.destroy());
  socket.once('close', () => {
    clearTimeout(linger);
    done();
  });
}
