import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { basicAuth, buildTestApp } from '../helpers/app.js';
import { dbFingerprint } from '../security/db-fingerprint.js';
import { attr, exportReq, projectCalls, sendOtel, span, toProtobuf } from './otel-fixture.js';

/** Otel docs/spec/otel-service-queues.md §E items 20–21 and the transport rules of §A.1–A.2, A.9: routing, auth, sizes, types. */

test('checklist 20: without resource routing the project_id header routes the spans; with neither → 400, nothing written', async (t) => {
  const h = await buildTestApp(t);
  const routed = await sendOtel(h, exportReq([span()], null), { headers: { project_id: 'acme/legacy' } });
  assert.equal(routed.statusCode, 200, routed.body);
  assert.deepEqual(
    (await projectCalls(h, 'acme/legacy')).map((c) => c.id),
    ['b7ad6b7169203331'],
  );

  const before = dbFingerprint(h);
  const lost = await sendOtel(h, toProtobuf(exportReq([span({ spanId: '1212121212121212' })], null)));
  assert.equal(lost.statusCode, 400);
  assert.match(lost.json().reason, /wandb\.entity/);
  assert.equal(dbFingerprint(h), before);
});

test('checklist 20 (groups): resource attributes beat the header; groups may target different projects; an unroutable group is counted', async (t) => {
  const h = await buildTestApp(t);
  const a = exportReq([span({ spanId: 'a1a1a1a1a1a1a1a1' })], 'acme/one').resourceSpans as unknown[];
  const b = exportReq([span({ spanId: 'b1b1b1b1b1b1b1b1' })], 'acme/two').resourceSpans as unknown[];
  const c = exportReq([span({ spanId: 'c1c1c1c1c1c1c1c1', name: 'lost' })], null).resourceSpans as unknown[];
  const res = await sendOtel(h, { resourceSpans: [...a, ...b, ...c] });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().partial_success.rejected_spans, 1);
  assert.match(
    res.json().partial_success.error_message,
    /name='lost'.*span_id='c1c1c1c1c1c1c1c1'.*wandb\.entity, wandb\.project/,
  );
  assert.deepEqual(
    (await projectCalls(h, 'acme/one')).map((x) => x.id),
    ['a1a1a1a1a1a1a1a1'],
  );
  assert.deepEqual(
    (await projectCalls(h, 'acme/two')).map((x) => x.id),
    ['b1b1b1b1b1b1b1b1'],
  );
  const header = await sendOtel(h, exportReq([span({ spanId: 'd1d1d1d1d1d1d1d1' })], 'acme/one'), {
    headers: { project_id: 'acme/two' },
  });
  assert.equal(header.statusCode, 200);
  assert.equal((await projectCalls(h, 'acme/one')).length, 2);
});

test('checklist 21: empty resourceSpans → 200 null; undecodable protobuf or JSON → 400; text/plain → 415', async (t) => {
  const h = await buildTestApp(t);
  for (const body of [{ resourceSpans: [] }, {}]) {
    const res = await sendOtel(h, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { partial_success: null });
  }
  assert.deepEqual(
    (await sendOtel(h, Buffer.alloc(0))).json(),
    { partial_success: null },
    'an empty protobuf message is an empty request',
  );
  const badPb = await sendOtel(h, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]));
  assert.equal(badPb.statusCode, 400);
  assert.match(badPb.json().reason, /protobuf/i);
  for (const text of [
    '{"resourceSpans": [',
    '{"resourceSpans": {"x": 1}}',
    '{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": 1.5}]}]}]}',
    '',
  ]) {
    const res = await sendOtel(h, text, { contentType: 'application/json' });
    assert.equal(res.statusCode, 400, `${text}: ${res.body}`);
    assert.equal(typeof res.json().reason, 'string');
  }
  const plain = await sendOtel(h, 'hello', { contentType: 'text/plain' });
  assert.equal(plain.statusCode, 415);
  assert.match(plain.json().reason, /text\/plain/);
  const brotli = await sendOtel(h, exportReq([span()]), { headers: { 'content-encoding': 'br' } });
  assert.equal(brotli.statusCode, 415);
  assert.deepEqual(await projectCalls(h), []);
});

test('413: a body over 32 MiB, raw or after gunzip, is refused and nothing is written', async (t) => {
  const h = await buildTestApp(t);
  const huge = Buffer.alloc(32 * 1024 * 1024 + 10, 0x20);
  const raw = await sendOtel(h, huge, { contentType: 'application/json' });
  assert.equal(raw.statusCode, 413);
  assert.match(raw.json().reason, /33554432/);
  const bomb = gzipSync(huge);
  assert.ok(bomb.length < 1024 * 1024);
  const res = await h.app.inject({
    method: 'POST',
    url: '/otel/v1/traces',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'wandb-api-key': h.aliceKey },
    payload: bomb,
  });
  assert.equal(res.statusCode, 413);
  assert.match(res.json().reason, /decompressed/);
  // just under the limit still works
  const padded = JSON.stringify(exportReq([span()])).replace('{', `{"pad": "${' '.repeat(1024 * 1024)}",`);
  assert.equal((await sendOtel(h, padded, { gzip: true })).statusCode, 200);
});

test('auth: the key is accepted as wandb-api-key, Basic or Bearer; missing or wrong → 401', async (t) => {
  const h = await buildTestApp(t);
  const body = JSON.stringify(exportReq([span()]));
  const send = (headers: Record<string, string>, url = '/otel/v1/traces') =>
    h.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: body });
  assert.equal((await send({ 'wandb-api-key': h.aliceKey })).statusCode, 200);
  assert.equal((await send({ authorization: basicAuth(h.aliceKey) })).statusCode, 200);
  assert.equal((await send({ authorization: `Bearer ${h.aliceKey}` })).statusCode, 200);
  assert.equal(
    (await send({ authorization: basicAuth(h.aliceKey) }, '/otel/v1/trace')).statusCode,
    200,
    'the alias takes Basic',
  );
  assert.equal((await send({})).statusCode, 401);
  assert.equal((await send({ 'wandb-api-key': 'nope'.repeat(10) })).statusCode, 401);
  assert.equal(
    (await send({ 'wandb-api-key': h.aliceKey }, '/otel/v1/trace')).statusCode,
    401,
    'wandb-api-key belongs to the new path only',
  );
  assert.equal((await projectCalls(h)).length, 1);
});

test("tenancy: bob cannot export into acme's project (403, nothing written), even in a mixed request", async (t) => {
  const h = await buildTestApp(t);
  const before = dbFingerprint(h);
  const res = await sendOtel(h, exportReq([span()]), { key: h.bobKey });
  assert.equal(res.statusCode, 403);
  assert.match(res.json().reason, /acme\/demo/);
  const mine = exportReq([span({ spanId: 'e1e1e1e1e1e1e1e1' })], 'other/x').resourceSpans as unknown[];
  const theirs = exportReq([span({ spanId: 'e2e2e2e2e2e2e2e2' })], 'acme/demo').resourceSpans as unknown[];
  const mixed = await sendOtel(h, toProtobuf({ resourceSpans: [...mine, ...theirs] }), { key: h.bobKey });
  assert.equal(mixed.statusCode, 403);
  const header = await sendOtel(h, exportReq([span()], null), { key: h.bobKey, headers: { project_id: 'acme/demo' } });
  assert.equal(header.statusCode, 403);
  assert.equal(dbFingerprint(h), before);
  assert.equal((await sendOtel(h, { resourceSpans: mine }, { key: h.bobKey })).statusCode, 200);
});

test('wb_run_id: the header applies to every span; else wandb.wb_run_id without / or : is prefixed with the project', async (t) => {
  const h = await buildTestApp(t);
  const spans = [
    span({
      spanId: 'f000000000000001',
      attributes: [attr('wandb.wb_run_id', 'run7'), attr('wandb.wb_run_step', 3), attr('wandb.wb_run_step_end', 4)],
    }),
    span({ spanId: 'f000000000000002', attributes: [attr('wandb.wb_run_id', 'acme/demo:run7')] }),
  ];
  assert.equal((await sendOtel(h, exportReq(spans))).statusCode, 200);
  const byId = Object.fromEntries(
    (await projectCalls(h)).map((c) => [c.id, [c.wb_run_id, c.wb_run_step, c.wb_run_step_end]]),
  );
  assert.deepEqual(byId, { f000000000000001: ['acme/demo:run7', 3, 4], f000000000000002: [null, null, null] });
  await sendOtel(h, exportReq([span({ spanId: 'f000000000000003' })]), { headers: { wb_run_id: 'acme/demo:r2' } });
  assert.equal((await projectCalls(h)).find((c) => c.id === 'f000000000000003')!.wb_run_id, 'acme/demo:r2');
});
