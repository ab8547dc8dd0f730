import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OverloadSettings, RateLimitSettings } from '../config/config.js';
import { KeyRateLimiter } from '../domain/rate-limiter.js';
import { OverloadedError, RateLimitedError } from '../errors/app-error.js';
import type { StoreLoad } from '../store/types.js';

/**
 * Back-pressure and per-key rate limits (issue 17, docs/reliability-backpressure.md). Past a bound
 * a request is answered 503 with `Retry-After` before its body is read, instead of joining queues
 * that grow until the process is slow for everyone and out of memory; the official clients retry
 * 429 and 5xx answers. The health routes (`config.healthCheck`) are never refused.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health route: never refused for load, never rate limited, reads no database. */
    healthCheck?: boolean;
    /** Never refused for load (a probe that needs a key, `/version`), but rate limited. */
    loadExempt?: boolean;
  }
  interface FastifyRequest {
    /** Set when the request took a place in the in-flight count (plugins/overload.ts). */
    inFlightSlot: Slot | null;
  }
}

/** Seconds a refused client is asked to wait; the store's queues drain in well under that when they can. */
const RETRY_AFTER_SECONDS = 1;

/** Requests being handled now: each holds a `Slot` from its `onRequest` hook until the slot is given back. */
export class InFlight {
  count = 0;
}

/**
 * Refuses a request with 503 when `maxInFlight` requests are already being handled, or when the
 * store's queue (writes waiting for commit plus callers waiting for a connection) is at
 * `maxStoreQueue`: then requests that may write (any method but GET and HEAD) are refused, and
 * GETs too once callers wait for connections. Registered before authentication, so a refused
 * request costs no key lookup.
 */
export function registerBackPressure(
  app: FastifyInstance,
  settings: OverloadSettings,
  load: () => StoreLoad,
): InFlight {
  const inFlight = new InFlight();
  app.decorateRequest('inFlightSlot', null);
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.config;
    if (route?.healthCheck || route?.loadExempt) return;
    if (inFlight.count >= settings.maxInFlight) {
      throw new OverloadedError(
        `Server busy: ${inFlight.count} requests in flight (limit ${settings.maxInFlight}); retry later`,
        RETRY_AFTER_SECONDS,
      );
    }
    refuseForStoreQueue(request, settings.maxStoreQueue, load());
    inFlight.count += 1;
    request.inFlightSlot = new Slot(inFlight, () => reply.sent);
    // 'close' fires for finished and for aborted requests alike; 'finish' as well in case a
    // response object (light-my-request's) does not emit 'close'
    reply.raw.once('finish', () => request.inFlightSlot?.connectionDone());
    reply.raw.once('close', () => request.inFlightSlot?.connectionDone());
  });
  // the handler has produced its answer (also after the client went away: Fastify still sends it)
  app.addHook('onSend', async (request, _reply, payload) => {
    request.inFlightSlot?.handlerDone();
    return payload;
  });
  return inFlight;
}

/** A safety net: a slot whose connection closed is given back after this even if its handler never answered. */
const ABANDONED_SLOT_MS = 60_000;

/**
 * One request's place in the in-flight count. It is given back once the connection is done *and*
 * the handler has answered: a client that disconnects does not end the work its request started
 * (a slow query runs on), so its slot is held until that work ends. A hijacked reply (the live tail
 * stream) has no answer to wait for: its slot is given back when its connection closes.
 */
class Slot {
  #connectionDone = false;
  #handlerDone = false;
  #released = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly inFlight: InFlight,
    private readonly sent: () => boolean,
  ) {}

  connectionDone(): void {
    this.#connectionDone = true;
    if (this.sent()) this.#handlerDone = true;
    if (!this.#handlerDone && !this.#timer) {
      this.#timer = setTimeout(() => this.#release(), ABANDONED_SLOT_MS);
      this.#timer.unref();
    }
    this.#maybeRelease();
  }

  handlerDone(): void {
    this.#handlerDone = true;
    this.#maybeRelease();
  }

  #maybeRelease(): void {
    if (this.#connectionDone && this.#handlerDone) this.#release();
  }

  #release(): void {
    if (this.#released) return;
    this.#released = true;
    clearTimeout(this.#timer);
    this.inFlight.count -= 1;
  }
}

function refuseForStoreQueue(request: FastifyRequest, max: number, load: StoreLoad): void {
  const reads = request.method === 'GET' || request.method === 'HEAD';
  const queued = reads ? load.waitingForConnection : load.pendingWrites + load.waitingForConnection;
  if (queued < max) return;
  throw new OverloadedError(
    `Server busy: ${queued} store operations are waiting for the database (limit ${max}); retry later`,
    RETRY_AFTER_SECONDS,
  );
}

/**
 * A token bucket per API key (browser sessions share their key's bucket): 429 with `Retry-After`
 * past it. Every answer to a limited caller carries `X-RateLimit-Limit` (the bucket's size),
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds until the bucket is full again).
 * Per node: N nodes behind a balancer allow up to N times the rate. Registered after
 * authentication, which sets `request.caller`.
 */
export function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings, now = Date.now): void {
  const limiter = new KeyRateLimiter(settings.perSecond, settings.burst);
  app.addHook('onRequest', async (request, reply) => {
    const caller = request.caller as FastifyRequest['caller'] | null;
    if (request.routeOptions.config?.healthCheck || !caller) return;
    const decision = limiter.take(caller.keyId ?? `user:${caller.userId}`, now());
    reply.header('x-ratelimit-limit', String(decision.limit));
    reply.header('x-ratelimit-remaining', String(decision.remaining));
    reply.header('x-ratelimit-reset', String(Math.ceil(decision.resetMs / 1000)));
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new RateLimitedError(
        `Rate limit exceeded: ${settings.perSecond} requests per second per API key (burst ${settings.burst}); retry in ${seconds} s`,
        seconds,
      );
    }
  });
}
