import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, CONFIG_VARIABLES, loadConfig } from '../../src/config/config.js';
import { unknownVariableWarnings } from '../../src/config/unknown-env.js';

/** The back-pressure and rate-limit settings (docs/reliability-backpressure.md). */

test('defaults: 512 in flight, 2,048 queued store operations, no rate limit', () => {
  const config = loadConfig({});
  assert.deepEqual(config.overload, { maxInFlight: 512, maxStoreQueue: 2_048 });
  assert.equal(config.rateLimit, null);
});

test('a rate turns the limit on; the burst defaults to twice the rate, at least 1', () => {
  assert.deepEqual(loadConfig({ HEDDLE_RATE_LIMIT_PER_KEY: '10' }).rateLimit, { perSecond: 10, burst: 20 });
  assert.deepEqual(loadConfig({ HEDDLE_RATE_LIMIT_PER_KEY: '0.2' }).rateLimit, { perSecond: 0.2, burst: 1 });
  assert.deepEqual(loadConfig({ HEDDLE_RATE_LIMIT_PER_KEY: '3', HEDDLE_RATE_LIMIT_BURST: '7' }).rateLimit, {
    perSecond: 3,
    burst: 7,
  });
  assert.equal(loadConfig({ HEDDLE_RATE_LIMIT_PER_KEY: '0', HEDDLE_RATE_LIMIT_BURST: '7' }).rateLimit, null);
});

test('invalid values are reported together, by name', () => {
  assert.throws(
    () =>
      loadConfig({
        HEDDLE_MAX_IN_FLIGHT: '0',
        HEDDLE_MAX_STORE_QUEUE: 'many',
        HEDDLE_RATE_LIMIT_PER_KEY: '-1',
        HEDDLE_RATE_LIMIT_BURST: '0',
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      for (const name of [
        'HEDDLE_MAX_IN_FLIGHT',
        'HEDDLE_MAX_STORE_QUEUE',
        'HEDDLE_RATE_LIMIT_PER_KEY',
        'HEDDLE_RATE_LIMIT_BURST',
      ])
        assert.match(error.message, new RegExp(`${name}=`));
      return true;
    },
  );
});

test('the new variables are known to the unknown-setting warning', () => {
  const env = {
    HEDDLE_MAX_IN_FLIGHT: '1',
    HEDDLE_MAX_STORE_QUEUE: '1',
    HEDDLE_RATE_LIMIT_PER_KEY: '1',
    HEDDLE_RATE_LIMIT_BURST: '1',
  };
  assert.deepEqual(unknownVariableWarnings(CONFIG_VARIABLES, env), []);
  assert.deepEqual(unknownVariableWarnings(CONFIG_VARIABLES, { HEDDLE_MAX_INFLIGHT: '1' }), [
    'Unknown setting HEDDLE_MAX_INFLIGHT is ignored; did you mean HEDDLE_MAX_IN_FLIGHT?',
  ]);
});
