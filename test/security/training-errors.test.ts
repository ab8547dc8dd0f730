import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { NotFoundError } from '../../src/errors/app-error.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { basicAuth } from '../helpers/app.js';

/**
 * Error bodies of the `/v1/...` training routes (training spec §1): `{"detail": "..."}` instead of
 * `{"reason": ...}`, "Not authenticated" with `WWW-Authenticate: Bearer` for a missing key. Checked
 * on a probe route added to a fresh app, so it holds before and after the training area exists.
 */
test('/v1 routes answer errors as {"detail": ...}', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-v1-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  const app = await buildApp({ config: loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_BODY_LIMIT_BYTES: '2048' }), store });
  app.post('/v1/heddle-probe', { schema: { hide: true, body: Type.Object({ n: Type.Integer() }) } }, async () => {
    throw new NotFoundError('Model not found');
  });
  await app.ready();
  t.after(async () => {
    await app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { key } = await app.services.auth.createKey({ entity: 'acme' });
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
