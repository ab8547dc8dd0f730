import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { basicAuth, buildTestApp, parseJsonl, PROJECT } from '../helpers/app.js';
import { dbFingerprint } from './db-fingerprint.js';
import { describeResponse, errorMessage, send } from './inject.js';
import { authenticatedRoutes, requestFor, routesWithoutCase } from './route-cases.js';

/**
 * Routes the spec lets through without credentials (docs/spec/README.md "Credentials", docs/spec/training.md §1), plus the OpenAPI
 * document, and the web UI's sign-in/sign-out and static app (sign-out checks the cookie's CSRF itself).
 */
const PUBLIC_ROUTES = new Set([
  'GET /health',
  'GET /openapi.json',
  'GET /v1/health',
  'GET /v1/system-check',
  'POST /auth/session',
  'DELETE /auth/session',
  'GET /',
  'GET /assets/*',
]);

test('every authenticated route has an entry in test/security/route-cases.ts', async (t) => {
  const h = await buildTestApp(t);
  assert.ok(authenticatedRoutes(h.app).length >= 10, 'the route table is filled');
  assert.deepEqual(
    routesWithoutCase(h.app),
    [],
    'add these routes to ROUTE_CASES in test/security/route-cases.ts (a minimal valid request naming a project, or noProject)',
  );
});

test('only the health routes and the OpenAPI document are public', async (t) => {
  const h = await buildTestApp(t);
  const publicRoutes = h.app.routeTable.filter((r) => r.public && !r.autoHead).map((r) => `${r.method} ${r.url}`);
  assert.deepEqual(
    publicRoutes.filter((r) => !PUBLIC_ROUTES.has(r)),
    [],
  );
  const health = await h.get('/health', null);
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  const openapi = await h.get('/openapi.json', null);
  assert.equal(openapi.statusCode, 200);
  assert.equal(openapi.json().openapi, '3.1.0');
  // A bad key on a public route is not an error either: the route does not look at it.
  assert.equal((await h.get('/health', 'not-a-key')).statusCode, 200);
});

test('missing, unknown, malformed and revoked keys get 401 on every authenticated route and write nothing', async (t) => {
  const h = await buildTestApp(t);
  const carol = await h.app.services.auth.createKey({ entity: 'acme', username: 'carol' });
  const probe = { project_id: PROJECT };
  assert.equal((await h.post('/calls/query_stats', probe, carol.key)).statusCode, 200, 'carol works before revocation');
  assert.equal(await h.app.services.auth.revokeKey(carol.record.id), true);
  // No waiting: revocation takes effect on the very next request (no key cache to expire).
  assert.equal((await h.post('/calls/query_stats', probe, carol.key)).statusCode, 401);
  assert.equal(await h.app.services.auth.revokeKey('key_does_not_exist'), false);

  const wrong = randomBytes(20).toString('hex');
  const credentials: Record<string, Record<string, string>> = {
    'no header': {},
    'unknown key (Basic)': { authorization: basicAuth(wrong) },
    'unknown key (Bearer)': { authorization: `Bearer ${wrong}` },
    'revoked key (Basic)': { authorization: basicAuth(carol.key) },
    'revoked key (Bearer)': { authorization: `Bearer ${carol.key}` },
    'empty Basic password': { authorization: basicAuth('') },
    'Basic without value': { authorization: 'Basic' },
    'Basic with garbage': { authorization: 'Basic !!!%%%' },
    'empty Bearer': { authorization: 'Bearer ' },
    'unknown scheme': { authorization: `Token ${h.aliceKey}` },
    'valid key in wandb-api-key header only (not an OTel route)': { 'wandb-api-key': h.aliceKey },
  };
  const before = dbFingerprint(h);
  // the OTLP ingest paths also take the key in `wandb-api-key` (src/routes/otel.ts)
  const keyHeaderRoutes = new Set(['/otel/v1/traces', '/agents/otel/v1/traces', '/otel/v1/genai/traces']);
  const routes = authenticatedRoutes(h.app).filter((r) => !keyHeaderRoutes.has(r.url));
  for (const route of routes) {
    const request = requestFor(route, PROJECT);
    for (const [what, headers] of Object.entries(credentials)) {
      const res = await send(h, route, request, headers);
      const where = `${what}: ${describeResponse(route.method, request.url, res)}`;
      assert.equal(res.statusCode, 401, where);
      assert.ok(errorMessage(res), `error body expected — ${where}`);
    }
  }
  assert.equal(dbFingerprint(h), before, 'a rejected request wrote to the database');
  // Read back with a valid key: nothing arrived in the project.
  const calls = await h.post('/calls/stream_query', { project_id: PROJECT });
  assert.equal(calls.statusCode, 200);
  assert.deepEqual(parseJsonl(calls.body), []);
  assert.deepEqual((await h.post('/call/read', { project_id: PROJECT, id: 'sec-call' })).json(), { call: null });
});

test('an unknown key in the wandb-api-key header gets 401 on the OTel route, when there is one', async (t) => {
  const h = await buildTestApp(t);
  const otel = h.app.routeTable.find((r) => r.url === '/otel/v1/traces' && r.method === 'POST');
  if (!otel) return; // the OTel area is not registered in this build; the generic 401 test covers the rest
  const before = dbFingerprint(h);
  for (const headers of [{}, { 'wandb-api-key': 'x'.repeat(40) }, { authorization: basicAuth('y'.repeat(40)) }]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/otel/v1/traces',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(res.statusCode, 401, res.body);
  }
  assert.equal(dbFingerprint(h), before);
});

test('Bearer works like Basic, and Basic ignores the user name', async (t) => {
  const h = await buildTestApp(t);
  const asBearer = await h.app.inject({
    method: 'POST',
    url: '/call/start',
    headers: { authorization: `Bearer ${h.aliceKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({
      start: {
        project_id: PROJECT,
        id: 'b1',
        op_name: 'op',
        started_at: '2025-01-01T00:00:00Z',
        attributes: {},
        inputs: {},
      },
    }),
  });
  assert.equal(asBearer.statusCode, 200, asBearer.body);
  const otherUser = `Basic ${Buffer.from(`someone:${h.aliceKey}`).toString('base64')}`;
  for (const authorization of [basicAuth(h.aliceKey), `bearer ${h.aliceKey}`, otherUser]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/call/read',
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({ project_id: PROJECT, id: 'b1' }),
    });
    assert.equal(res.statusCode, 200, `${authorization.split(' ')[0]}: ${res.body}`);
    assert.equal(res.json().call.id, 'b1');
  }
  // Bearer is refused exactly like Basic for another entity.
  const forbidden = await h.app.inject({
    method: 'POST',
    url: '/call/read',
    headers: { authorization: `Bearer ${h.aliceKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ project_id: 'other/x', id: 'b1' }),
  });
  assert.equal(forbidden.statusCode, 403);
});

test('the admin key (HEDDLE_ADMIN_KEY) reaches every entity; an --admin key too', async (t) => {
  const adminKey = randomBytes(20).toString('hex');
  const h = await buildTestApp(t, { HEDDLE_ADMIN_KEY: adminKey });
  assert.equal(
    await h.app.services.auth.bootstrapAdmin(h.config.adminKey, 'admin'),
    null,
    'a configured key is not generated',
  );
  const second = (await h.app.services.auth.createKey({ entity: 'ops', username: 'root', admin: true })).key;
  for (const key of [adminKey, second]) {
    for (const project of [PROJECT, 'other/x', 'nobody-yet/new']) {
      const id = `adm-${key.slice(0, 4)}-${project.replace('/', '-')}`;
      const start = await h.post(
        '/call/start',
        {
          start: {
            project_id: project,
            id,
            op_name: 'op',
            started_at: '2025-01-01T00:00:00Z',
            attributes: {},
            inputs: {},
          },
        },
        key,
      );
      assert.equal(start.statusCode, 200, `${project}: ${start.body}`);
      const read = await h.post('/call/read', { project_id: project, id }, key);
      assert.equal(read.json().call?.id, id);
    }
  }
  // What the admin wrote into acme/demo, alice sees; what it wrote into other/x, she does not reach.
  assert.equal(
    (await h.post('/call/read', { project_id: PROJECT, id: `adm-${adminKey.slice(0, 4)}-acme-demo` })).json().call
      .op_name,
    'op',
  );
  assert.equal((await h.post('/call/read', { project_id: 'other/x', id: 'x' })).statusCode, 403);
  // Starting again with the same configured key does not add a second key.
  const keysBefore = (await h.app.services.auth.listKeys()).length;
  await h.app.services.auth.bootstrapAdmin(adminKey, 'admin');
  assert.equal((await h.app.services.auth.listKeys()).length, keysBefore);
});

test('wb_user_id in a body is ignored and replaced by the caller', async (t) => {
  const h = await buildTestApp(t);
  const alice = await h.app.services.auth.authenticate(h.aliceKey);
  const start = (id: string) => ({
    project_id: PROJECT,
    id,
    op_name: 'op',
    started_at: '2025-01-01T00:00:00Z',
    attributes: {},
    inputs: {},
    wb_user_id: 'mallory',
  });
  assert.equal((await h.post('/call/start', { start: start('u1') })).statusCode, 200);
  const batch = await h.post('/call/upsert_batch', { batch: [{ mode: 'start', req: { start: start('u2') } }] });
  assert.equal(batch.statusCode, 200, batch.body);
  const update = await h.post('/call/update', {
    project_id: PROJECT,
    call_id: 'u1',
    display_name: 'n',
    wb_user_id: 'mallory',
  });
  assert.equal(update.statusCode, 200, update.body);
  for (const id of ['u1', 'u2']) {
    const call = (await h.post('/call/read', { project_id: PROJECT, id })).json().call;
    assert.equal(call.wb_user_id, alice.userId, id);
  }
  const byMallory = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { wb_user_ids: ['mallory'] } });
  assert.deepEqual(parseJsonl(byMallory.body), []);
  const byAlice = await h.post('/calls/stream_query', { project_id: PROJECT, filter: { wb_user_ids: [alice.userId] } });
  assert.deepEqual(
    parseJsonl(byAlice.body)
      .map((c) => c.id)
      .sort(),
    ['u1', 'u2'],
  );
  // A delete naming another user is still the caller's delete of the caller's calls.
  const del = await h.post('/calls/delete', { project_id: PROJECT, call_ids: ['u1'], wb_user_id: 'mallory' });
  assert.equal(del.statusCode, 200, del.body);
  assert.deepEqual((await h.post('/call/read', { project_id: PROJECT, id: 'u1' })).json(), { call: null });
});
