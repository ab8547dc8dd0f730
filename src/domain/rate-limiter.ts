/**
 * Token buckets keyed by API key (docs/reliability-backpressure.md): each key earns `perSecond`
 * tokens a second up to `burst`, and a request spends one. Pure: the caller passes the clock.
 */

export interface RateDecision {
  allowed: boolean;
  /** Bucket capacity (`X-RateLimit-Limit`). */
  limit: number;
  /** Whole tokens left after this request (`X-RateLimit-Remaining`). */
  remaining: number;
  /** Milliseconds until a request would be allowed (0 when this one was). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again (`X-RateLimit-Reset`, in seconds). */
  resetMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class KeyRateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;

  /** `maxKeys`: buckets kept before full ones (equal to a fresh bucket) are dropped, so memory stays bounded. */
  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly maxKeys = 10_000,
  ) {
    if (!(perSecond > 0) || !(burst >= 1)) throw new RangeError('rate limit needs perSecond > 0 and burst >= 1');
    this.#perMs = perSecond / 1000;
  }

  /** Spends one token of `key`'s bucket at `nowMs` when it has one. */
  take(key: string, nowMs: number): RateDecision {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= this.maxKeys) this.#sweep(nowMs);
      bucket = { tokens: this.burst, at: nowMs };
      this.#buckets.set(key, bucket);
    }
    // a clock that stepped back earns nothing rather than a negative amount
    bucket.tokens = Math.min(this.burst, bucket.tokens + Math.max(0, nowMs - bucket.at) * this.#perMs);
    bucket.at = nowMs;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(bucket.tokens),
      retryAfterMs: allowed ? 0 : (1 - bucket.tokens) / this.#perMs,
      resetMs: (this.burst - bucket.tokens) / this.#perMs,
    };
  }

  /** Buckets held (for tests of the memory bound). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Drops buckets that have refilled; when every key is active, the oldest half. */
  #sweep(nowMs: number): void {
    for (const [key, bucket] of this.#buckets)
      if (bucket.tokens + (nowMs - bucket.at) * this.#perMs >= this.burst) this.#buckets.delete(key);
    if (this.#buckets.size < this.maxKeys) return;
    let drop = Math.ceil(this.#buckets.size / 2);
    // a Map iterates in insertion order: the first keys are the longest-held buckets
    for (const key of this.#buckets.keys()) {
      if (drop-- <= 0) break;
      this.#buckets.delete(key);
    }
  }
}
