import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import {
  attr,
  exportReq,
  ingestOne,
  ownAttributes,
  projectCalls,
  sendOtel,
  span,
  toProtobuf,
  TRACE,
} from './otel-fixture.js';

/** Otel docs/spec/otel-service-queues.md §E checklist items 1–11 (transport, ids, op names, status, usage, inputs), and cache token usage. */

const LLM_ATTRS = [
  attr('gen_ai.response.model', 'gpt-4o-mini-2024-07-18'),
  attr('gen_ai.request.model', 'gpt-4o-mini'),
  attr('gen_ai.usage.input_tokens', 120),
  attr('gen_ai.usage.output_tokens', 80),
  attr('input.value', '{"q": "hi", "n": 9007199254740993}'),
];

test('checklist 1: an OTLP protobuf export is routed by wandb.entity/wandb.project and read back with hex ids', async (t) => {
  const h = await buildTestApp(t);
  const res = await sendOtel(h, toProtobuf(exportReq([span({ attributes: LLM_ATTRS })])));
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), { partial_success: null });
  const calls = await projectCalls(h);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.id, 'b7ad6b7169203331');
  assert.equal(calls[0]!.trace_id, TRACE);
  assert.equal(calls[0]!.started_at, '2026-01-01T00:00:00Z');
  assert.equal(calls[0]!.ended_at, '2026-01-01T00:00:01.500000Z');
  // eslint-disable-next-line no-loss-of-precision -- 2^53 + 1 as in the attribute JSON; compared as the nearest double
  assert.deepEqual(calls[0]!.inputs, { 'input.value': { q: 'hi', n: 9007199254740993 } });
});

test('checklist 2: the same payload as OTLP/JSON gives an identical call (int64 exact)', async (t) => {
  const h = await buildTestApp(t);
  const req = (project: string) =>
    exportReq([span({ attributes: [...LLM_ATTRS, attr('big', 9223372036854775807n)] })], project);
  assert.equal((await sendOtel(h, toProtobuf(req('acme/pb')))).statusCode, 200);
  assert.equal((await sendOtel(h, req('acme/js'))).statusCode, 200);
  const raw = async (project: string) => {
    const res = await h.post('/calls/stream_query', { project_id: project });
    const name = project.split('/')[1];
    return res.body
      .replaceAll(project, 'P')
      .replaceAll(`"project":"${name}"`, '"project":"P"')
      .replace(/"wb_user_id":"[^"]*"/, '');
  };
  const [pb, js] = [await raw('acme/pb'), await raw('acme/js')];
  assert.equal(pb, js);
  // exact int64s survive in the stored dump (text, not a rounded double)
  assert.ok(pb.includes('"big":9223372036854775807'), pb);
  assert.ok(pb.includes('"n":9007199254740993'), pb);
});

test('checklist 3: gzip bodies are accepted in both encodings; a corrupt gzip body is a 400', async (t) => {
  const h = await buildTestApp(t);
  const pb = await sendOtel(h, toProtobuf(exportReq([span({ spanId: '1111111111111111' })])), { gzip: true });
  assert.equal(pb.statusCode, 200, pb.body);
  const js = await sendOtel(h, exportReq([span({ spanId: '2222222222222222' })]), { gzip: true });
  assert.equal(js.statusCode, 200, js.body);
  assert.deepEqual((await projectCalls(h)).map((c) => c.id).sort(), ['1111111111111111', '2222222222222222']);
  const corrupt = await sendOtel(h, Buffer.from('definitely not gzip'), { headers: { 'content-encoding': 'gzip' } });
  assert.equal(corrupt.statusCode, 400);
  assert.match(corrupt.json().reason, /gzip/i);
});

test('checklist 4: parentSpanId becomes parent_id; absent or empty is a root', async (t) => {
  const h = await buildTestApp(t);
  const spans = [
    span({ spanId: 'aaaaaaaaaaaaaaaa' }),
    span({ spanId: 'bbbbbbbbbbbbbbbb', parentSpanId: 'AAAAAAAAAAAAAAAA' }),
    span({ spanId: 'cccccccccccccccc', parentSpanId: '' }),
  ];
  assert.equal((await sendOtel(h, exportReq(spans))).statusCode, 200);
  assert.equal(
    (await sendOtel(h, toProtobuf(exportReq([span({ spanId: 'dddddddddddddddd', parentSpanId: 'bbbbbbbbbbbbbbbb' })]))))
      .statusCode,
    200,
  );
  const byId = Object.fromEntries((await projectCalls(h)).map((c) => [c.id, c.parent_id]));
  assert.deepEqual(byId, {
    aaaaaaaaaaaaaaaa: null,
    bbbbbbbbbbbbbbbb: 'aaaaaaaaaaaaaaaa',
    cccccccccccccccc: null,
    dddddddddddddddd: 'bbbbbbbbbbbbbbbb',
  });
});

test('checklist 5: op_name is the lowercased name with spaces and / as _, and trace_name is that object id', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, { name: 'POST /v1/Chat Completions' });
  const ops = (await h.post('/objs/query', { project_id: 'acme/demo', filter: { is_op: true } })).json().objs;
  assert.equal(ops.length, 1);
  assert.equal(ops[0].object_id, 'post__v1_chat_completions');
  assert.equal(call.op_name, `weave:///acme/demo/op/post__v1_chat_completions:${ops[0].digest}`);
  assert.equal(call.summary.weave.trace_name, 'post__v1_chat_completions');
  // a second export of the same name reuses the op
  await ingestOne(h, { name: 'POST /v1/Chat Completions', spanId: '9999999999999999' });
  assert.equal(
    (await h.post('/objs/query', { project_id: 'acme/demo', filter: { is_op: true } })).json().objs.length,
    1,
  );
});

test('checklist 6: a span name of 128+ characters becomes ≤128 characters ending in : and 4 hex chars', async (t) => {
  const h = await buildTestApp(t);
  const name = `${'word '.repeat(40)}end`;
  const call = await ingestOne(h, { name });
  const objectId = call.op_name.split('/op/')[1].split(':')[0];
  assert.ok(objectId.length <= 128, objectId);
  assert.match(objectId, /_[0-9a-f]{4}$/);
  assert.ok(objectId.startsWith('word_word_'));
  const ops = (await h.post('/objs/query', { project_id: 'acme/demo', filter: { is_op: true } })).json().objs;
  assert.equal(ops[0].object_id, objectId);
  assert.equal(call.attributes.otel_span.name, name, 'the dump keeps the original name');
});

test('checklist 7: status ERROR sets exception and status error; OK and UNSET do not', async (t) => {
  const h = await buildTestApp(t);
  const spans = [
    span({ spanId: '1000000000000001', status: { code: 2, message: 'boom' } }),
    span({ spanId: '1000000000000002', status: { code: 'STATUS_CODE_OK', message: 'fine' } }),
    span({ spanId: '1000000000000003', status: {} }),
    span({ spanId: '1000000000000004', status: { code: 'STATUS_CODE_ERROR' } }),
  ];
  assert.equal((await sendOtel(h, exportReq(spans))).statusCode, 200);
  const byId = Object.fromEntries((await projectCalls(h)).map((c) => [c.id, [c.exception, c.summary.weave.status]]));
  assert.deepEqual(byId, {
    '1000000000000001': ['boom', 'error'],
    '1000000000000002': [null, 'success'],
    '1000000000000003': [null, 'success'],
    '1000000000000004': ['', 'error'],
  });
});

test('checklist 8: input/output tokens with gen_ai.response.model fill summary.usage[model] with total 200', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [
      attr('gen_ai.response.model', 'M'),
      attr('gen_ai.usage.input_tokens', 120),
      attr('gen_ai.usage.output_tokens', 80),
    ],
  });
  assert.deepEqual(call.summary.usage, {
    M: {
      input_tokens: 120,
      output_tokens: 80,
      prompt_tokens: null,
      completion_tokens: null,
      total_tokens: 200,
      requests: null,
    },
  });
});

test('checklist 9: the usage key prefers gen_ai.response.model over gen_ai.request.model; no model gives "usage"', async (t) => {
  const h = await buildTestApp(t);
  const both = await ingestOne(h, {
    spanId: '2000000000000001',
    attributes: [
      attr('gen_ai.request.model', 'req'),
      attr('gen_ai.response.model', 'resp'),
      attr('llm.token_count.prompt', '7'),
    ],
  });
  assert.deepEqual(Object.keys(both.summary.usage), ['resp']);
  assert.equal(both.summary.usage.resp.prompt_tokens, 7);
  const requestOnly = await ingestOne(h, {
    spanId: '2000000000000002',
    attributes: [attr('gen_ai.request.model', 'req')],
  });
  // our choice: a model without token counts writes no usage entry of nulls
  assert.equal(requestOnly.summary.usage, undefined);
  const none = await ingestOne(h, { spanId: '2000000000000003', attributes: [attr('llm.token_count.total', 5)] });
  assert.deepEqual(Object.keys(none.summary.usage), ['usage']);
  assert.equal(none.summary.usage.usage.total_tokens, 5);
});

test('checklist 10: gen_ai.prompt.N.* / gen_ai.completion.N.* become chat messages and choices', async (t) => {
  const h = await buildTestApp(t);
  const call = await ingestOne(h, {
    attributes: [
      attr('gen_ai.prompt.0.role', 'system'),
      attr('gen_ai.prompt.0.content', 'be brief'),
      attr('gen_ai.prompt.1.role', 'user'),
      attr('gen_ai.prompt.1.content', 'hi'),
      attr('gen_ai.completion.0.role', 'assistant'),
      attr('gen_ai.completion.0.content', 'hello'),
    ],
  });
  assert.deepEqual(call.inputs, {
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ],
  });
  assert.deepEqual(call.output, {
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: null }],
  });
});

test('checklist 11: input.value holding a JSON object is parsed; plain text stays text', async (t) => {
  const h = await buildTestApp(t);
  const json = await ingestOne(h, {
    spanId: '3000000000000001',
    attributes: [attr('input.value', '{"city": "Lisbon", "days": [1, 2]}')],
  });
  assert.deepEqual(json.inputs, { 'input.value': { city: 'Lisbon', days: [1, 2] } });
  const text = await ingestOne(h, {
    spanId: '3000000000000002',
    attributes: [attr('input.value', 'plan a trip'), attr('output.value', ' {not json')],
  });
  assert.deepEqual(text.inputs, { 'input.value': 'plan a trip' });
  assert.deepEqual(text.output, { 'output.value': ' {not json' });
  const broken = await ingestOne(h, { spanId: '3000000000000003', attributes: [attr('input.value', '{broken')] });
  assert.deepEqual(broken.inputs, { 'input.value': '{broken' });
  assert.deepEqual(ownAttributes(broken), {});
});

test('usage with prompt-cache tokens: OTel GenAI, OpenLLMetry and OpenInference names land as cache_*_input_tokens', async (t) => {
  const h = await buildTestApp(t);
  const genAi = await ingestOne(h, {
    spanId: 'c000000000000001',
    attributes: [
      attr('gen_ai.response.model', 'claude'),
      attr('gen_ai.usage.input_tokens', 100),
      attr('gen_ai.usage.output_tokens', 10),
      attr('gen_ai.usage.cache_read.input_tokens', 60),
      attr('gen_ai.usage.cache_creation.input_tokens', 20),
    ],
  });
  assert.deepEqual(genAi.summary.usage.claude, {
    input_tokens: 100,
    output_tokens: 10,
    prompt_tokens: null,
    completion_tokens: null,
    total_tokens: 110,
    requests: null,
    cache_read_input_tokens: 60,
    cache_creation_input_tokens: 20,
  });
  const openLlmetry = await ingestOne(h, {
    spanId: 'c000000000000002',
    attributes: [attr('gen_ai.request.model', 'm'), attr('gen_ai.usage.cache_read_input_tokens', '7')],
  });
  assert.equal(openLlmetry.summary.usage.m.cache_read_input_tokens, 7);
  assert.equal('cache_creation_input_tokens' in openLlmetry.summary.usage.m, false);
  const openInference = await ingestOne(h, {
    spanId: 'c000000000000003',
    attributes: [
      attr('llm.model_name', 'oi'),
      attr('llm.token_count.prompt', 50),
      attr('llm.token_count.prompt_details.cache_read', 30),
      attr('llm.token_count.prompt_details.cache_write', 5),
    ],
  });
  assert.deepEqual(
    [
      openInference.summary.usage.oi.cache_read_input_tokens,
      openInference.summary.usage.oi.cache_creation_input_tokens,
    ],
    [30, 5],
  );
  // the calls usage roll-up reads them
  const usage = await h.post('/calls/usage', { project_id: 'acme/demo', call_ids: ['c000000000000001'] });
  assert.equal(usage.statusCode, 200, usage.body);
  assert.match(usage.body, /"cache_read_input_tokens":60/);
});

test('issue 33: a parent carries its subtree usage and status, from earlier and the same exports', async (t) => {
  const h = await buildTestApp(t);
  const usage = [attr('gen_ai.request.model', 'm-1'), attr('gen_ai.usage.input_tokens', 7)];
  // the chat child first, alone (a SimpleSpanProcessor's order), then the failing tool and the root together
  const child = span({ spanId: 'c000000000000001', parentSpanId: 'a000000000000001', attributes: usage });
  assert.equal((await sendOtel(h, exportReq([child]))).statusCode, 200);
  const tool = span({
    spanId: 'c000000000000002',
    parentSpanId: 'a000000000000001',
    status: { code: 2, message: 'x' },
  });
  const root = span({ spanId: 'a000000000000001', name: 'agent' });
  assert.equal((await sendOtel(h, exportReq([tool, root]))).statusCode, 200);
  const calls = await projectCalls(h);
  const r = calls.find((c) => c.id === 'a000000000000001')!;
  assert.equal(r.summary.usage['m-1'].input_tokens, 7);
  assert.deepEqual(r.summary.status_counts, { success: 2, error: 1 });
  assert.equal(r.summary.weave.status, 'descendant_error');
  const c = calls.find((x) => x.id === 'c000000000000001')!;
  assert.equal(c.summary.status_counts, undefined, 'a leaf keeps its summary as mapped');
});
