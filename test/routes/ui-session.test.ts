import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { hashApiKey } from '../../src/services/auth-service.js';
import { basicAuth, buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import { dumpTables } from '../helpers/db-rows.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

/** Web UI sessions (`/auth/session`), cookie authentication with its CSRF rules, and `GET /projects`. */

const HOST = 'heddle.test:8080';

async function signIn(h: TestApp, key: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'POST',
    url: '/auth/session',
    headers: { host: HOST, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ api_key: key }),
  });
}

/** `heddle_session=<token>` from a sign-in answer. */
function cookieOf(res: LightMyRequestResponse): string {
  const header = String(res.headers['set-cookie']);
  const match = /^heddle_session=([^;]+);/.exec(header);
  assert.ok(match, `no session cookie in ${header}`);
  return `heddle_session=${match[1]}`;
}

function withCookie(
  h: TestApp,
  cookie: string,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method,
    url,
    headers: {
      host: HOST,
      cookie,
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
}

test('sign-in sets an HttpOnly, SameSite=Strict session cookie with an opaque token and answers the user', async (t) => {
  const h = await buildTestApp(t);
  const res = await signIn(h, h.aliceKey);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { user: { id: string; username: string }; entities: string[] };
  assert.equal(body.user.username, 'alice');
  assert.equal(typeof body.user.id, 'string');
  assert.deepEqual(body.entities, ['acme']);
  const setCookie = String(res.headers['set-cookie']);
  assert.match(setCookie, /^heddle_session=[A-Za-z0-9_-]{40,}; /);
  for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${7 * 24 * 3600}`]) {
    assert.ok(setCookie.split('; ').includes(flag), `${flag} in ${setCookie}`);
  }
  assert.ok(!setCookie.includes('Secure'), 'no Secure flag over plain http');
  assert.ok(!setCookie.includes(h.aliceKey) && !res.body.includes(h.aliceKey), 'the key is never echoed');
  assert.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS headers');

  // the store keeps the token's hash only, with the key it was made from
  const token = cookieOf(res).split('=')[1];
  const rows = dumpTables(h).find((d) => d.table === 'ui_sessions')!.rows;
  assert.equal(rows.length, 1);
  assert.ok(!rows[0]!.includes(token!) && !rows[0]!.includes(h.aliceKey));
  assert.ok(rows[0]!.includes(hashApiKey(token!)));

  const again = await withCookie(h, cookieOf(res), 'GET', '/auth/session');
  assert.equal(again.statusCode, 200, again.body);
  assert.deepEqual(again.json(), body);
});

test('the session names the entities the user may write: a viewer reads an entity it cannot write', async (t) => {
  const h = await buildTestApp(t);
  const member = (await signIn(h, h.aliceKey)).json() as Record<string, unknown>;
  assert.deepEqual([member.entities, member.writable_entities, member.instance_admin], [['acme'], ['acme'], false]);
  const vera = await h.app.services.auth.createKey({ entity: 'acme', username: 'vera' });
  await h.store.auth.setMembershipRole(vera.record.userId, 'acme', 'viewer');
  const viewer = (await signIn(h, vera.key)).json() as Record<string, unknown>;
  assert.deepEqual([viewer.entities, viewer.writable_entities, viewer.instance_admin], [['acme'], [], false]);
  const root = await h.app.services.auth.createKey({ entity: 'ops', username: 'root', admin: true });
  assert.equal(((await signIn(h, root.key)).json() as Record<string, unknown>).instance_admin, true);
});

test('over https (or behind a proxy saying so) the cookie is Secure; the lifetime is configurable', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_SESSION_TTL_SECONDS: '3600' });
  const res = await signIn(h, h.aliceKey, { 'x-forwarded-proto': 'https' });
  assert.equal(res.statusCode, 200);
  const setCookie = String(res.headers['set-cookie']);
  assert.ok(setCookie.split('; ').includes('Secure'), setCookie);
  assert.ok(setCookie.split('; ').includes('Max-Age=3600'), setCookie);
});

test('a wrong, revoked or missing key cannot sign in; a bad cookie is a 401', async (t) => {
  const h = await buildTestApp(t);
  const wrong = await signIn(h, 'f'.repeat(40));
  assert.equal(wrong.statusCode, 401);
  assert.equal(wrong.headers['set-cookie'], undefined);
  assert.equal((await h.app.inject({ method: 'POST', url: '/auth/session', payload: {} })).statusCode, 422);
  assert.equal((await h.get('/auth/session', null)).statusCode, 401);
  const bad = await withCookie(h, 'heddle_session=not-a-session', 'GET', '/auth/session');
  assert.equal(bad.statusCode, 401);
  assert.equal((await withCookie(h, 'heddle_session=x', 'GET', '/projects')).statusCode, 401);
});

test('a session ends with sign-out (CSRF header needed), with revoking its key, and at expiry', async (t) => {
  const h = await buildTestApp(t);
  const cookie = cookieOf(await signIn(h, h.aliceKey));
  const noHeader = await withCookie(h, cookie, 'DELETE', '/auth/session');
  assert.equal(noHeader.statusCode, 403);
  assert.equal((await withCookie(h, cookie, 'GET', '/auth/session')).statusCode, 200, 'still signed in');
  const out = await withCookie(h, cookie, 'DELETE', '/auth/session', { headers: { 'x-heddle-csrf': '1' } });
  assert.equal(out.statusCode, 204);
  assert.match(String(out.headers['set-cookie']), /^heddle_session=; Max-Age=0;/);
  assert.equal((await withCookie(h, cookie, 'GET', '/auth/session')).statusCode, 401, 'ended server-side');
  assert.equal((await h.app.inject({ method: 'DELETE', url: '/auth/session' })).statusCode, 204, 'idempotent');

  const second = cookieOf(await signIn(h, h.aliceKey));
  assert.equal((await withCookie(h, second, 'GET', '/projects')).statusCode, 200);
  const key = (await h.app.services.auth.listKeys()).find((k) => k.username === 'alice')!;
  assert.equal(await h.app.services.auth.revokeKey(key.id), true);
  assert.equal((await withCookie(h, second, 'GET', '/auth/session')).statusCode, 401, 'revoking the key ends it');
  assert.equal((await withCookie(h, second, 'GET', '/projects')).statusCode, 401);
  assert.equal((await signIn(h, h.aliceKey)).statusCode, 401, 'a revoked key cannot sign in');

  const bobKey = (await h.app.services.auth.listKeys()).find((k) => k.username === 'bob')!;
  const now = Date.now() * 1000;
  await h.store.auth.createSession({
    token_hash: hashApiKey('expired-token'),
    user_id: bobKey.user_id,
    api_key_id: bobKey.id,
    created_at: now - 10_000_000,
    expires_at: now - 1,
  });
  assert.equal((await withCookie(h, 'heddle_session=expired-token', 'GET', '/auth/session')).statusCode, 401);
});

test('cookie auth works on API routes; unsafe methods need X-Heddle-CSRF and a same-origin Origin', async (t) => {
  const h = await buildTestApp(t);
  const cookie = cookieOf(await signIn(h, h.aliceKey));
  const query = { project_id: PROJECT, limit: 1 };
  const csrf = { 'x-heddle-csrf': '1' };

  const missing = await withCookie(h, cookie, 'POST', '/calls/stream_query', { body: query });
  assert.equal(missing.statusCode, 403);
  assert.match((missing.json() as { reason: string }).reason, /X-Heddle-CSRF/);
  const wrongValue = await withCookie(h, cookie, 'POST', '/calls/stream_query', {
    body: query,
    headers: { 'x-heddle-csrf': 'yes' },
  });
  assert.equal(wrongValue.statusCode, 403);
  const crossOrigin = await withCookie(h, cookie, 'POST', '/call/start', {
    body: makeStart(),
    headers: { ...csrf, origin: 'https://evil.example' },
  });
  assert.equal(crossOrigin.statusCode, 403);
  assert.match((crossOrigin.json() as { reason: string }).reason, /Origin/);
  const nullOrigin = await withCookie(h, cookie, 'POST', '/calls/stream_query', {
    body: query,
    headers: { ...csrf, origin: 'null' },
  });
  assert.equal(nullOrigin.statusCode, 403);
  assert.equal((await h.post('/calls/stream_query', query)).statusCode, 200, 'nothing was written by the refusals');

  const sameOrigin = await withCookie(h, cookie, 'POST', '/call/start', {
    body: makeStart({ id: 'via-cookie' }),
    headers: { ...csrf, origin: `http://${HOST}` },
  });
  assert.equal(sameOrigin.statusCode, 200, sameOrigin.body);
  const proxied = await withCookie(h, cookie, 'POST', '/calls/stream_query', {
    body: query,
    headers: { ...csrf, host: 'backend:8080', 'x-forwarded-host': 'heddle.example', origin: 'https://heddle.example' },
  });
  assert.equal(proxied.statusCode, 200, 'behind a proxy that rewrites Host, X-Forwarded-Host is the origin');
  const noOrigin = await withCookie(h, cookie, 'POST', '/calls/stream_query', { body: query, headers: csrf });
  assert.equal(noOrigin.statusCode, 200);
  assert.match(noOrigin.body, /via-cookie/);
  const get = await withCookie(h, cookie, 'GET', '/projects', { headers: { origin: 'https://evil.example' } });
  assert.equal(get.statusCode, 200, 'GET needs no CSRF header');
  assert.equal(get.headers['access-control-allow-origin'], undefined);

  // a cross-site page cannot sign the browser in either
  const crossSignIn = await signIn(h, h.aliceKey, { origin: 'https://evil.example' });
  assert.equal(crossSignIn.statusCode, 403);
  assert.equal(crossSignIn.headers['set-cookie'], undefined);

  // header credentials take precedence and skip the CSRF rules (the cookie is ignored)
  const basic = await h.app.inject({
    method: 'POST',
    url: '/calls/stream_query',
    headers: { authorization: basicAuth(h.bobKey), cookie, 'content-type': 'application/json' },
    payload: JSON.stringify(query),
  });
  assert.equal(basic.statusCode, 403, "bob's key, not alice's cookie, decides");
});

test("a session reaches only its user's entities", async (t) => {
  const h = await buildTestApp(t);
  const bob = cookieOf(await signIn(h, h.bobKey));
  const res = await withCookie(h, bob, 'POST', '/calls/stream_query', {
    body: { project_id: PROJECT },
    headers: { 'x-heddle-csrf': '1' },
  });
  assert.equal(res.statusCode, 403);
  assert.equal((await withCookie(h, bob, 'GET', `/calls/live_tail?project_id=${PROJECT}`)).statusCode, 403);
});

test("GET /projects lists the caller's entities' projects, latest call first, without counting", async (t) => {
  const h = await buildTestApp(t);
  const start = (project: string, id: string, at: string) =>
    h.post('/call/start', makeStart({ project_id: project, id, started_at: at }));
  assert.equal((await start('acme/old', 'a', '2024-01-01T00:00:00Z')).statusCode, 200);
  assert.equal((await start('acme/new', 'b', '2025-06-01T00:00:00Z')).statusCode, 200);
  assert.equal((await start('acme/new', 'c', '2025-05-01T00:00:00Z')).statusCode, 200);
  assert.equal((await h.post('/call/end', makeEnd('c', { project_id: 'acme/new' }))).statusCode, 200);
  assert.equal((await h.post('/call/start', makeStart({ project_id: 'other/x', id: 'z' }), h.bobKey)).statusCode, 200);
  // a project with objects but no calls comes last
  const obj = await h.post('/obj/create', { obj: { project_id: 'acme/objects-only', object_id: 'o', val: { a: 1 } } });
  assert.equal(obj.statusCode, 200, obj.body);

  const res = await h.get('/projects');
  assert.equal(res.statusCode, 200, res.body);
  const { projects } = res.json() as { projects: Array<Record<string, unknown>> };
  assert.deepEqual(
    projects.map((p) => p.project_id),
    ['acme/new', 'acme/old', 'acme/objects-only'],
  );
  assert.deepEqual(Object.keys(projects[0]!).sort(), [
    'call_count',
    'created_at',
    'entity',
    'last_call_at',
    'name',
    'project_id',
  ]);
  assert.equal(projects[0]!.entity, 'acme');
  assert.equal(projects[0]!.name, 'new');
  assert.equal(projects[0]!.last_call_at, '2025-06-01T00:00:00Z');
  assert.equal(projects[0]!.call_count, null);
  assert.match(String(projects[0]!.created_at), /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.equal(projects[2]!.last_call_at, null);

  const bob = (await h.get('/projects', h.bobKey)).json() as { projects: Array<{ project_id: string }> };
  assert.deepEqual(
    bob.projects.map((p) => p.project_id),
    ['other/x'],
  );
  assert.equal((await h.get('/projects', null)).statusCode, 401);
});
