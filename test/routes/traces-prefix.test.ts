import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stripTracesPrefix } from '../../src/plugins/traces-prefix.js';
import { basicAuth, buildTestApp, PROJECT } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';

test('stripTracesPrefix maps /traces paths to root paths and leaves others alone', () => {
  const cases: Array<[string, string]> = [
    ['/traces/calls/stream_query', '/calls/stream_query'],
    ['/traces/server_info?x=1', '/server_info?x=1'],
    ['/traces', '/'],
    ['/traces?a=b', '/?a=b'],
    ['/tracesx/calls', '/tracesx/calls'],
    ['/otel/v1/traces', '/otel/v1/traces'],
    ['/calls/stream_query', '/calls/stream_query'],
  ];
  for (const [input, expected] of cases) assert.equal(stripTracesPrefix(input), expected, input);
});

test('the trace API answers under /traces like at the root', async (t) => {
  const h = await buildTestApp(t);
  assert.equal((await h.post('/traces/call/start', makeStart({ id: 'p1', inputs: { q: 1 } }))).statusCode, 200);
  assert.equal((await h.post('/traces/call/end', makeEnd('p1', { output: 'ok' }))).statusCode, 200);

  const root = await h.post('/calls/stream_query', { project_id: PROJECT });
  const prefixed = await h.post('/traces/calls/stream_query', { project_id: PROJECT });
  assert.equal(prefixed.statusCode, 200);
  assert.equal(prefixed.headers['content-type'], root.headers['content-type']);
  assert.equal(prefixed.body, root.body);
  assert.equal(JSON.parse(prefixed.body.trim()).output, 'ok');

  for (const path of ['/server_info', '/health', '/version']) {
    const a = await h.get(path);
    const b = await h.get(`/traces${path}`);
    assert.equal(b.statusCode, a.statusCode, path);
    assert.equal(b.body, a.body, path);
  }
  // credentials, tenancy and validation apply the same way
  assert.equal((await h.post('/traces/calls/stream_query', { project_id: PROJECT }, null)).statusCode, 401);
  assert.equal((await h.post('/traces/calls/stream_query', { project_id: PROJECT }, h.bobKey)).statusCode, 403);
  const bad = await h.post('/traces/calls/stream_query', { project_id: PROJECT, limit: 'x' });
  assert.equal(bad.statusCode, 422);
  assert.equal((await h.get('/traces/no_such_route')).statusCode, 404);
  const wrongMethod = await h.app.inject({
    method: 'GET',
    url: '/traces/calls/stream_query',
    headers: { authorization: basicAuth(h.aliceKey) },
  });
  assert.equal(wrongMethod.statusCode, 405);
});

test('the OpenAPI document lists each operation once, at its root path', async (t) => {
  const h = await buildTestApp(t);
  const doc = (await h.get('/openapi.json')).json() as {
    paths: Record<string, unknown>;
    info: { description: string };
  };
  assert.ok(doc.paths['/calls/stream_query']);
  assert.deepEqual(
    Object.keys(doc.paths).filter((p) => p.startsWith('/traces')),
    [],
  );
  assert.match(doc.info.description, /\/traces/);
});
