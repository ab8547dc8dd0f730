import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../src/errors/app-error.js';
import { basicAuth, buildTestApp } from '../helpers/app.js';

/**
 * Error bodies of the `/v1/...` training routes (docs/spec/training.md §1): `{"detail": "..."}` instead of
 * `{"reason": ...}`, "Not authenticated" with `WWW-Authenticate: Bearer` for a missing key. Checked
 * on a probe route added to a fresh app, so it holds before and after the training area exists.
 * The app runs on the store the pass selects (HEDDLE_TEST_STORE).
 */
test('/v1 routes answer errors as {"detail": ...}', async (t) => {
  const { app, aliceKey: key } = await buildTestApp(
    t,
    { HEDDLE_BODY_LIMIT_BYTES: '2048' },
    {
      beforeReady: (probe) => {
        probe.post(
          '/v1/heddle-probe',
          { schema: { hide: true, body: Type.Object({ n: Type.Integer() }) } },
          async () => {
            throw new NotFoundError('Model not found');
          },
        );
      },
    },
  );
  const send = (headers: Record<string, string>, payload: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/heddle-probe',
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });

  const missing = await send({}, '{"n":1}');
  assert.equal(missing.statusCode, 401);
  assert.deepEqual(missing.json(), { detail: 'Not authenticated' });
  assert.equal(missing.headers['www-authenticate'], 'Bearer');
  const wrong = await send({ authorization: 'Bearer '.concat('0'.repeat(40)) }, '{"n":1}');
  assert.equal(wrong.statusCode, 401);
  assert.deepEqual(wrong.json(), { detail: 'Invalid API key' });

  const notFound = await send({ authorization: `Bearer ${key}` }, '{"n":1}');
  assert.equal(notFound.statusCode, 404);
  assert.deepEqual(notFound.json(), { detail: 'Model not found' });
  const invalid = await send({ authorization: basicAuth(key) }, '{"n":"x"}');
  assert.equal(invalid.statusCode, 422);
  assert.deepEqual(invalid.json().detail[0].loc, ['body', 'n']);
  const big = await send({ authorization: `Bearer ${key}` }, JSON.stringify({ n: 1, pad: 'x'.repeat(4096) }));
  assert.equal(big.statusCode, 413);
  assert.match(big.json().detail, /^Request too large.*2048/);
  const unknown = await app.inject({ method: 'GET', url: '/v1/nothing-here' });
  assert.deepEqual([unknown.statusCode, unknown.json()], [404, { detail: 'Not Found' }]);
  // Everything else keeps `reason`.
  const other = await app.inject({
    method: 'POST',
    url: '/call/read',
    headers: { 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(other.statusCode, 401);
  assert.equal(typeof other.json().reason, 'string');
});
