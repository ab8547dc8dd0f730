import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { attr, exportReq, ingestOne, ownAttributes, projectCalls, sendOtel, span } from './otel-fixture.js';

/** Otel docs/spec/otel-service-queues.md §E checklist items 12–19 and 22 (generic keys, names, threads, attributes, dump, rejections). */

test('checklist 12: a generic input object is de-nested into inputs; a generic output string is the output', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [attr('input', { city: 'Lisbon', days: 2 }), attr('output', 'sunny')],
  });
  assert.deepEqual(call.inputs, { city: 'Lisbon', days: 2 });
  assert.equal(call.output, 'sunny');
  const fromJsonText = await ingestOne(h, {
    spanId: '4000000000000002',
    attributes: [attr('inputs', '{"a": 1}'), attr('outputs', '[1, 2]')],
  });
  assert.deepEqual(fromJsonText.inputs, { a: 1 });
  assert.deepEqual(fromJsonText.output, [1, 2]);
  const textInput = await ingestOne(h, { spanId: '4000000000000003', attributes: [attr('input', 'just text')] });
  assert.deepEqual(textInput.inputs, { input: 'just text' });
});

test('checklist 13: wandb.display_name becomes display_name (and the read-side display name)', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, { attributes: [attr('wandb.display_name', 'My nice step')] });
  assert.equal(call.display_name, 'My nice step');
  assert.equal(call.summary.weave.display_name, 'My nice step');
  const long = await ingestOne(h, {
    spanId: '5000000000000002',
    attributes: [attr('wandb.display_name', 'x'.repeat(2000))],
  });
  assert.ok(long.display_name.length <= 1024 && long.display_name.endsWith('...'), long.display_name.length);
});

test('checklist 14: wandb.thread_id with wandb.is_turn sets thread_id and turn_id = id; either alone does not make a turn', async (t) => {
  const h = await buildTestApp(t);
  const spans = [
    span({ spanId: '6000000000000001', attributes: [attr('wandb.thread_id', 't-1'), attr('wandb.is_turn', true)] }),
    span({ spanId: '6000000000000002', attributes: [attr('wandb.is_turn', true)] }),
    span({ spanId: '6000000000000003', attributes: [attr('wandb.thread_id', 't-1')] }),
    span({ spanId: '6000000000000004', attributes: [attr('wandb.thread_id', 't-1'), attr('wandb.is_turn', false)] }),
  ];
  assert.equal((await sendOtel(h, exportReq(spans))).statusCode, 200);
  const byId = Object.fromEntries((await projectCalls(h)).map((c) => [c.id, [c.thread_id, c.turn_id]]));
  assert.deepEqual(byId, {
    '6000000000000001': ['t-1', '6000000000000001'],
    '6000000000000002': [null, null],
    '6000000000000003': ['t-1', null],
    '6000000000000004': ['t-1', null],
  });
  const threads = await h.post('/threads/stream_query', { project_id: 'acme/demo' });
  assert.equal(threads.statusCode, 200);
  assert.match(threads.body, /"thread_id":"t-1"/);
});

test('checklist 15: wandb.attributes (kvlist or JSON text) entries land at the root of attributes', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [
      attr('gen_ai.operation.name', 'chat'),
      attr('wandb.attributes', { team: 'search', tier: 2, nested: { a: true } }),
    ],
  });
  assert.deepEqual(ownAttributes(call), { operation: 'chat', team: 'search', tier: 2, nested: { a: true } });
  const fromText = await ingestOne(h, {
    spanId: '7000000000000002',
    attributes: [attr('wandb.attributes', '{"env": "prod"}')],
  });
  assert.deepEqual(ownAttributes(fromText), { env: 'prod' });
});

test('checklist 16: a span with no recognised keys keeps its whole nested attribute tree', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [
      attr('http.method', 'GET'),
      attr('http.status_code', 200),
      attr('db.rows.0', 'x'),
      attr('flag', false),
    ],
  });
  assert.deepEqual(ownAttributes(call), {
    http: { method: 'GET', status_code: 200 },
    db: { rows: { '0': 'x' } },
    flag: false,
  });
  assert.deepEqual(call.inputs, {});
  assert.deepEqual(call.output, {});
  // a raw `model` attribute in the fallback tree is not a recognised model, and with no token counts
  // there is no usage entry at all (our choice: no usage of nulls)
  const raw = await ingestOne(h, { spanId: '7100000000000002', attributes: [attr('model', 'not-a-key')] });
  assert.deepEqual(ownAttributes(raw), { model: 'not-a-key' });
  assert.equal(raw.summary.usage, undefined);
});

test('checklist 17: every OTel call carries attributes.otel_span with name, context, kind, status and resource', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(
    h,
    {
      name: 'fetch',
      kind: 'SPAN_KIND_SERVER',
      status: { code: 1 },
      attributes: [attr('bytes', 3)],
      events: [{ name: 'gen_ai.choice', timeUnixNano: '1767225600250000000', attributes: [attr('index', 0)] }],
    },
    [attr('host.name', 'box-1')],
  );
  const dump = call.attributes.otel_span;
  assert.equal(dump.name, 'fetch');
  assert.deepEqual(dump.context, {
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'b7ad6b7169203331',
    trace_state: '',
  });
  assert.equal(dump.kind, 'SERVER');
  assert.deepEqual(dump.status, { code: 'OK', message: '' });
  assert.equal(dump.start_time, '2026-01-01T00:00:00Z');
  assert.equal(dump.end_time, '2026-01-01T00:00:01.500000Z');
  assert.deepEqual(dump.attributes, { bytes: 3 });
  assert.deepEqual(dump.events, [
    {
      name: 'gen_ai.choice',
      timestamp: '2026-01-01T00:00:00.250000Z',
      attributes: { index: 0 },
      dropped_attributes_count: 0,
    },
  ]);
  assert.deepEqual(dump.links, []);
  assert.deepEqual(dump.resource, {
    attributes: { service: { name: 'svc' }, wandb: { entity: 'acme', project: 'demo' }, host: { name: 'box-1' } },
    dropped_attributes_count: 0,
  });
  // the event feeds `events.gen_ai.choice` output extraction
  assert.deepEqual(call.output, { 'events.gen_ai.choice': [{ index: 0 }] });
});

test('checklist 18: a path-conflicting span is rejected with its key and span id; the good span is stored', async (t) => {
  const h = await buildTestApp(t);
  const spans = [
    span({ spanId: '8000000000000001', name: 'good' }),
    span({
      spanId: '8000000000000002',
      name: 'bad',
      attributes: [attr('gen_ai.prompt', true), attr('gen_ai.prompt.content', 'x')],
    }),
    span({
      spanId: '8000000000000003',
      name: 'bad too',
      attributes: [attr('gen_ai.prompt.content', 'x'), attr('gen_ai.prompt', true)],
    }),
  ];
  const res = await sendOtel(h, exportReq(spans));
  assert.equal(res.statusCode, 200, res.body);
  const partial = res.json().partial_success;
  assert.equal(partial.rejected_spans, 2);
  const messages = partial.error_message.split('; ');
  assert.equal(messages.length, 2);
  assert.match(
    messages[0],
    /^Rejected span \(name='bad' trace_id='0af7651916cd43dd8448eb211c80319c' span_id='8000000000000002'\): Invalid attribute structure: .*'gen_ai\.prompt'/,
  );
  assert.match(messages[1], /span_id='8000000000000003'.*'gen_ai\.prompt'/);
  assert.deepEqual(
    (await projectCalls(h)).map((c) => c.id),
    ['8000000000000001'],
  );
});

test('checklist 18 (limits): more than 20 rejected spans list 20 messages then "; ..."; bad ids are rejected too', async (t) => {
  const h = await buildTestApp(t);
  const bad = Array.from({ length: 22 }, (_, i) =>
    span({ spanId: `9${String(i).padStart(15, '0')}`, attributes: [attr('a', 1), attr('a.b', 2)] }),
  );
  const res = await sendOtel(
    h,
    exportReq([...bad, span({ spanId: 'xyz' }), span({ traceId: '', spanId: '1234123412341234' })]),
  );
  const partial = res.json().partial_success;
  assert.equal(partial.rejected_spans, 24);
  assert.equal(partial.error_message.split('; Rejected span').length, 20);
  assert.ok(partial.error_message.endsWith('; ...'));
  assert.deepEqual(await projectCalls(h), []);
});

test('checklist 19: langfuse.startTime (ISO) overrides started_at; int ns and float s forms work too', async (t) => {
  const h = await buildTestApp(t);
  const iso = await ingestOne(h, {
    spanId: 'a000000000000001',
    attributes: [attr('langfuse.startTime', '2025-06-01T12:00:00.123456Z')],
  });
  assert.equal(iso.started_at, '2025-06-01T12:00:00.123456Z');
  assert.equal(iso.ended_at, '2026-01-01T00:00:01.500000Z');
  const ns = await ingestOne(h, {
    spanId: 'a000000000000002',
    attributes: [attr('langfuse.endTime', 1767225605000000000n)],
  });
  assert.equal(ns.ended_at, '2026-01-01T00:00:05Z');
  const secs = await ingestOne(h, {
    spanId: 'a000000000000003',
    attributes: [attr('langfuse.startTime', 1767225599.5)],
  });
  assert.equal(secs.started_at, '2025-12-31T23:59:59.500000Z');
  const junk = await ingestOne(h, {
    spanId: 'a000000000000004',
    attributes: [attr('langfuse.startTime', 'yesterday')],
  });
  assert.equal(junk.started_at, '2026-01-01T00:00:00Z');
});

test('checklist 22: exporting the same span twice leaves one call, the latest export winning', async (t) => {
  const h = await buildTestApp(t);
  await ingestOne(h, { attributes: [attr('output', 'first')] });
  const again = await ingestOne(h, { attributes: [attr('output', 'second')] });
  assert.equal(again.output, 'second');
  assert.equal((await projectCalls(h)).length, 1);
});
