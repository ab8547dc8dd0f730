import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import { makeStart } from '../helpers/factories.js';
import { Fuzzer, prng } from './fuzz.js';
import { describeResponse } from './inject.js';
import { authenticatedRoutes, requestFor, ROUTE_CASES, routeKey, type RouteCase } from './route-cases.js';

/** Service-wide error shapes (docs/spec/README.md "Schema failures", "Other errors", "Sizes"; docs/spec/calls.md §6). */

const LOC_ROOTS = new Set(['body', 'path', 'query', 'header']);

/** Problems with an error answer's shape; empty when it is fine. A success answer is not checked. */
function errorShapeProblems(res: LightMyRequestResponse, shape?: RouteCase['errorShape']): string[] {
  if (res.statusCode < 400) return [];
  if (res.statusCode >= 500) return [`status ${res.statusCode}`];
  let body: { reason?: unknown; detail?: unknown; errors?: Array<{ message?: unknown }> };
  try {
    body = res.json();
  } catch {
    return ['body is not JSON'];
  }
  // Failures before the route runs (body parsing, content type) keep the service-wide shape.
  if (shape === 'graphql' && typeof body.errors?.[0]?.message === 'string') return [];
  // JSON-RPC (MCP): `{"jsonrpc": "2.0", "error": {"code", "message"}}`
  if (shape === 'jsonrpc' && typeof (body as { error?: { message?: unknown } }).error?.message === 'string') return [];
  if (typeof body.reason === 'string' && body.reason !== '') return [];
  if (typeof body.detail === 'string' && body.detail !== '') return [];
  if (!Array.isArray(body.detail) || body.detail.length === 0) return ['no reason and no non-empty detail'];
  if (res.statusCode !== 422) return [`a detail list with status ${res.statusCode}`];
  const problems: string[] = [];
  for (const item of body.detail as Array<{ loc?: unknown; msg?: unknown; type?: unknown }>) {
    const loc = item.loc;
    if (!Array.isArray(loc) || loc.length === 0 || !loc.every((p) => typeof p === 'string'))
      problems.push(`loc not a string[]: ${JSON.stringify(loc)}`);
    else if (!LOC_ROOTS.has(loc[0]!)) problems.push(`loc starts with ${JSON.stringify(loc[0])}`);
    if (typeof item.msg !== 'string' || item.msg === '') problems.push('msg missing');
    if (typeof item.type !== 'string' || item.type === '') problems.push('type missing');
  }
  return problems;
}

test('unknown routes answer 404 {"detail":"Not Found"}, with or without credentials', async (t) => {
  const h = await buildTestApp(t);
  for (const url of ['/nope', '/call', '/call/start/extra', '/calls/', '/v9/x', '/%2e%2e/etc']) {
    for (const key of [undefined, null]) {
      const res = await h.app.inject({
        method: 'POST',
        url,
        headers: key === null ? {} : { authorization: basicAuth(h.aliceKey) },
      });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), { detail: 'Not Found' });
    }
  }
  const get = await h.get('/does/not/exist');
  assert.equal(get.statusCode, 404);
  assert.deepEqual(get.json(), { detail: 'Not Found' });
});

test('a known path with the wrong method answers 405 {"detail":"Method Not Allowed"}', async (t) => {
  const h = await buildTestApp(t);
  const cases: Array<['GET' | 'PUT' | 'DELETE' | 'PATCH' | 'POST', string]> = [
    ['GET', '/call/start'],
    ['PUT', '/call/start'],
    ['DELETE', '/calls/delete'],
    ['PATCH', '/calls/stream_query'],
    ['POST', '/health'],
    ['DELETE', '/version'],
    ['GET', '/call/start/'],
    ['GET', '/call/start?x=1'],
  ];
  for (const [method, url] of cases) {
    const res = await h.app.inject({ method, url, headers: { authorization: basicAuth(h.aliceKey) } });
    assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
    assert.deepEqual(res.json(), { detail: 'Method Not Allowed' });
  }
  // Every registered route: another method on its path is a 405, never a 404 or 500. "Another"
  // means one that no route matching the concrete path takes (`GET /annotation_queues/query` is
  // the read of a queue whose id is "query").
  const pattern = (url: string): RegExp =>
    new RegExp(
      `^${url
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
        .replace(/\*/g, '.*')}$`,
    );
  const routes = h.app.routeTable.map((r) => ({ method: r.method, re: pattern(r.url) }));
  for (const url of new Set(h.app.routeTable.map((r) => r.url))) {
    const concrete = url.replace(/:([A-Za-z0-9_]+)/g, 'x').replace(/\*/g, 'x');
    const methods = new Set(routes.filter((r) => r.re.test(concrete)).map((r) => r.method));
    const other = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].find((m) => !methods.has(m)) as 'GET' | undefined;
    if (!other) continue;
    const res = await h.app.inject({ method: other, url: concrete, headers: { authorization: basicAuth(h.aliceKey) } });
    assert.equal(res.statusCode, 405, `${other} ${concrete}: ${res.body}`);
  }
});

test('a body over HEDDLE_BODY_LIMIT_BYTES answers 413 naming the limit, and is not written', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_BODY_LIMIT_BYTES: '2048' });
  assert.equal(h.config.bodyLimitBytes, 2048);
  const big = makeStart({ id: 'too-big', inputs: { text: 'x'.repeat(4096) } });
  const res = await h.post('/call/start', big);
  assert.equal(res.statusCode, 413, res.body);
  const reason = res.json().reason as string;
  assert.match(reason, /^Request too large/);
  assert.match(reason, /2048/);
  assert.deepEqual((await h.post('/call/read', { project_id: PROJECT, id: 'too-big' })).json(), { call: null });
  // Just under the limit is fine.
  const small = makeStart({ id: 'small', inputs: { text: 'x'.repeat(1024) } });
  assert.equal((await h.post('/call/start', small)).statusCode, 200);
});

test('a body that is not JSON answers 422 json_invalid; a wrong content type 415 with a reason', async (t) => {
  const h = await buildTestApp(t);
  const headers = { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' };
  for (const payload of ['{', 'not json', '{"start": }', '[1,2', "{'a':1}"]) {
    const res = await h.app.inject({ method: 'POST', url: '/call/start', headers, payload });
    assert.equal(res.statusCode, 422, `${payload}: ${res.body}`);
    const detail = res.json().detail;
    assert.equal(detail[0].type, 'json_invalid', res.body);
    assert.deepEqual(detail[0].loc.slice(0, 1), ['body']);
  }
  const empty = await h.app.inject({ method: 'POST', url: '/call/start', headers, payload: '' });
  assert.equal(empty.statusCode, 422, empty.body);
  assert.equal(empty.json().detail[0].type, 'missing');

  const valid = JSON.stringify(makeStart({ id: 'ct' }));
  for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'image/png']) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/call/start',
      headers: { ...headers, 'content-type': contentType },
      payload: valid,
    });
    assert.equal(res.statusCode, 415, `${contentType}: ${res.body}`);
    assert.match(res.json().reason, new RegExp(contentType.replace('/', '\\/')));
  }
  const noType = await h.app.inject({
    method: 'POST',
    url: '/call/start',
    headers: { authorization: basicAuth(h.aliceKey) },
    payload: valid,
  });
  assert.equal(noType.statusCode, 415, noType.body);
  assert.equal(typeof noType.json().reason, 'string');
  // A charset parameter is still JSON.
  const charset = await h.app.inject({
    method: 'POST',
    url: '/call/start',
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    payload: valid,
  });
  assert.equal(charset.statusCode, 200, charset.body);
  assert.deepEqual((await h.post('/call/read', { project_id: PROJECT, id: 'ct' })).json().call.id, 'ct');
});

test('schema failures answer 422 with a non-empty detail list of {loc: string[], msg, type}', async (t) => {
  const h = await buildTestApp(t);
  const cases: Array<[string, unknown, string[], string]> = [
    ['/call/start', {}, ['body', 'start'], 'missing'],
    [
      '/call/start',
      { start: { ...makeStart().start, started_at: 'yesterday' } },
      ['body', 'start', 'started_at'],
      'datetime_parsing',
    ],
    ['/call/read', { project_id: PROJECT, id: 'x', extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
    ['/call/read', { project_id: 7, id: 'x' }, ['body', 'project_id'], 'string_type'],
    ['/calls/stream_query', { project_id: PROJECT, limit: 'ten' }, ['body', 'limit'], 'int_parsing'],
    [
      '/call/upsert_batch',
      { batch: [{ mode: 'start', req: { start: { project_id: PROJECT } } }] },
      ['body', 'batch', '0', 'req', 'start', 'op_name'],
      'missing',
    ],
  ];
  for (const [url, body, loc, type] of cases) {
    const res = await h.post(url, body);
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.deepEqual(errorShapeProblems(res), [], res.body);
    const detail = res.json().detail as Array<{ loc: string[]; type: string }>;
    assert.ok(
      detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc) && d.type === type),
      `${url}: wanted ${loc.join('.')} ${type}, got ${res.body}`,
    );
  }
});

test('the rich fuzz seeds are valid requests (so mutating them reaches the services)', async (t) => {
  const h = await buildTestApp(t);
  const failures: string[] = [];
  for (const route of authenticatedRoutes(h.app)) {
    const entry = ROUTE_CASES[routeKey(route)];
    if (!entry?.fuzzBody || !entry.request) continue;
    const request = { url: entry.request(PROJECT).url, body: entry.fuzzBody(PROJECT) };
    const res = await h.app.inject({
      method: route.method as 'POST',
      url: request.url,
      headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
      payload: JSON.stringify(request.body),
    });
    if (res.statusCode !== 200) failures.push(describeResponse(route.method, request.url, res));
  }
  assert.deepEqual(failures, []);
});

test('extreme paging values (limit, offset) never produce a 500 on any route', async (t) => {
  const h = await buildTestApp(t);
  const failures: string[] = [];
  const extremes: unknown[] = [2 ** 63, -(2 ** 63), 2 ** 53 + 1, '9'.repeat(40), '-9'.repeat(20), 1e308, -1, 0, 0.5];
  for (const route of authenticatedRoutes(h.app).filter((r) => r.method === 'POST' || r.method === 'PUT')) {
    const entry = ROUTE_CASES[routeKey(route)];
    const base = entry?.fuzzBody?.(PROJECT) ?? requestFor(route, PROJECT).body;
    if (base === null || typeof base !== 'object' || Array.isArray(base)) continue;
    const url = requestFor(route, PROJECT).url;
    for (const field of ['limit', 'offset']) {
      for (const value of extremes) {
        const body = { ...(base as Record<string, unknown>), [field]: value };
        const res = await h.app.inject({
          method: route.method as 'POST',
          url,
          headers: { authorization: basicAuth(h.aliceKey), 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        const problems = errorShapeProblems(res, entry?.errorShape);
        if (problems.length > 0)
          failures.push(`${field}=${JSON.stringify(value)}: ${describeResponse(route.method, url, res)}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test('no malformed body produces a 500: a few hundred seeded bodies per POST/PUT route', async (t) => {
  const h = await buildTestApp(t);
  const f = new Fuzzer(prng(20_250_101));
  const routes = authenticatedRoutes(h.app).filter((r) => r.method === 'POST' || r.method === 'PUT');
  assert.ok(routes.length >= 10);
  const perRoute = Number(process.env.HEDDLE_FUZZ_PER_ROUTE ?? 240);
  const failures: string[] = [];
  for (const route of routes) {
    const valid = requestFor(route, PROJECT);
    const rich = ROUTE_CASES[routeKey(route)]?.fuzzBody;
    if (rich) valid.body = rich(PROJECT);
    const validJson = JSON.stringify(valid.body ?? {});
    for (let i = 0; i < perRoute; i += 1) {
      const roll = f.int(10);
      let payload: string;
      let contentType = 'application/json';
      if (roll < 4) payload = JSON.stringify(f.mutate(valid.body ?? {}));
      else if (roll < 6) payload = JSON.stringify(f.mutate(f.mutate(valid.body ?? {})));
      else if (roll < 8) payload = JSON.stringify(f.value(4));
      else payload = f.rawText(validJson);
      if (f.int(40) === 0)
        contentType = f.pick([
          'text/plain',
          'application/json; charset=latin1',
          'application/octet-stream',
          'multipart/form-data',
        ]);
      const res = await h.app.inject({
        method: route.method as 'POST',
        url: valid.url,
        headers: { authorization: basicAuth(h.aliceKey), 'content-type': contentType },
        payload,
      });
      const problems = errorShapeProblems(res, ROUTE_CASES[routeKey(route)]?.errorShape);
      if (problems.length > 0)
        failures.push(
          `${problems.join('; ')} — ${describeResponse(route.method, valid.url, res)} — body ${payload.slice(0, 200)}`,
        );
    }
  }
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers`);
});
