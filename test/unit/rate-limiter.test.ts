import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyRateLimiter } from '../../src/domain/rate-limiter.js';

test('a key spends its burst, then earns perSecond tokens a second', () => {
  const limiter = new KeyRateLimiter(2, 3);
  const at = (ms: number) => limiter.take('k', ms);
  assert.deepEqual(
    [at(0), at(0), at(0)].map((d) => [d.allowed, d.remaining]),
    [
      [true, 2],
      [true, 1],
      [true, 0],
    ],
  );
  const refused = at(100);
  assert.equal(refused.allowed, false);
  // 0.2 tokens earned in 100 ms: 0.8 more take 400 ms at 2 a second
  assert.ok(Math.abs(refused.retryAfterMs - 400) < 1e-6, String(refused.retryAfterMs));
  assert.ok(Math.abs(refused.resetMs - 1400) < 1e-6, String(refused.resetMs));
  assert.equal(at(500).allowed, true);
  assert.equal(at(500).allowed, false);
  // a long pause refills to the burst, never beyond it
  const later = at(60_000);
  assert.equal(later.allowed, true);
  assert.equal(later.remaining, 2);
});

test('keys have buckets of their own', () => {
  const limiter = new KeyRateLimiter(1, 1);
  assert.equal(limiter.take('a', 0).allowed, true);
  assert.equal(limiter.take('a', 0).allowed, false);
  assert.equal(limiter.take('b', 0).allowed, true);
});

test('a clock that steps back earns nothing', () => {
  const limiter = new KeyRateLimiter(1, 1);
  assert.equal(limiter.take('a', 10_000).allowed, true);
  assert.equal(limiter.take('a', 0).allowed, false);
});

test('memory stays bounded: refilled buckets are dropped, and the oldest when all are active', () => {
  const limiter = new KeyRateLimiter(1, 1, 100);
  for (let i = 0; i < 100; i += 1) limiter.take(`k${i}`, 0);
  assert.equal(limiter.size, 100);
  // all 100 are empty at t=0; at t=5 s every one has refilled and is dropped
  limiter.take('new', 5_000);
  assert.equal(limiter.size, 1);
  for (let i = 0; i < 1_000; i += 1) limiter.take(`busy${i}`, 5_000);
  assert.ok(limiter.size <= 100, String(limiter.size));
});

test('a rate of zero or a burst below one is refused', () => {
  assert.throws(() => new KeyRateLimiter(0, 1), RangeError);
  assert.throws(() => new KeyRateLimiter(1, 0.5), RangeError);
});
