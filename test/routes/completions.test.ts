import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { BuiltinTrainer } from '../../src/training/builtin-trainer.js';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { publish } from './evaluations-server-fixture.js';

/**
 * Weave's LLM proxy (`/completions/create`, `/completions/create_stream`), what the playground
 * runs: through the in-process `heddle/` provider (a training model of the project on the built-in
 * trainer: a real model, nothing leaves the process) and through a `Provider` object naming an
 * OpenAI-compatible server on loopback that streams Server-Sent Events.
 */

type Json = Record<string, any>;

interface FakeProvider {
  baseUrl: string;
  bodies: Json[];
}

/** An OpenAI-compatible server: `stream: true` answers SSE chunks ("Hel", "lo"), otherwise JSON; `boom` answers 500. */
async function startStreamingProvider(t: TestContext): Promise<FakeProvider> {
  const bodies: Json[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Json;
      bodies.push(body);
      if (body.model === 'boom') return res.writeHead(500).end('upstream broke');
      const usage = { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 };
      if (!body.stream)
        return res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'c1',
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
            usage,
          }),
        );
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const head = { id: 'c1', object: 'chat.completion.chunk', model: body.model };
      const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);
      send({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] });
      send({ ...head, choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] });
      send({ ...head, choices: [], usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

async function readCall(h: TestApp, id: string): Promise<Json> {
  const res = await h.post('/call/read', { project_id: PROJECT, id });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().call as Json;
}

async function callCount(h: TestApp): Promise<number> {
  const res = await h.post('/calls/query_stats', { project_id: PROJECT });
  return res.json().count as number;
}

const MESSAGES = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'Say hi' },
];

test('heddle/<training model> answers in process; the run is a weave.completions_create call with its usage', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new BuiltinTrainer({ backend: 'cpu' }) });
  const model = await h.post('/v1/preview/models', { project: 'demo', name: 'bot', base_model: 'heddle/byte-decoder' });
  assert.equal(model.statusCode, 200, model.body);

  const inputs = { model: 'heddle/bot', messages: MESSAGES, temperature: 0, max_tokens: 6 };
  const res = await h.post('/completions/create', { project_id: PROJECT, inputs });
  assert.equal(res.statusCode, 200, res.body);
  const { response, weave_call_id: callId } = res.json() as Json;
  assert.equal(typeof response.choices[0].message.content, 'string');
  assert.equal(typeof callId, 'string');

  const call = await readCall(h, callId);
  assert.match(call.op_name, /^weave:\/\/\/acme\/demo\/op\/weave\.completions_create:/);
  assert.deepEqual(call.inputs, inputs);
  assert.deepEqual(call.output.choices, response.choices);
  assert.equal(call.exception, null);
  const usage = Object.values(call.summary.usage as Json)[0] as Json;
  assert.equal(usage.requests, 1);
  assert.equal(usage.completion_tokens, response.usage.completion_tokens);

  // the same greedy request answers the same, untracked: no call is written
  const before = await callCount(h);
  const untracked = await h.post('/completions/create', { project_id: PROJECT, inputs, track_llm_call: false });
  assert.equal(untracked.statusCode, 200, untracked.body);
  assert.equal(untracked.json().weave_call_id, undefined);
  assert.equal(untracked.json().response.choices[0].message.content, response.choices[0].message.content);
  assert.equal(await callCount(h), before);

  // a provider that cannot stream streams its whole answer: meta, the content, the usage
  const streamed = await h.post('/completions/create_stream', { project_id: PROJECT, inputs });
  assert.equal(streamed.statusCode, 200, streamed.body);
  assert.match(String(streamed.headers['content-type']), /^application\/jsonl/);
  const lines = parseJsonl(streamed.body) as Json[];
  assert.equal(typeof lines[0]!._meta.weave_call_id, 'string');
  assert.equal(lines[1]!.choices[0].delta.content, response.choices[0].message.content);
  assert.deepEqual(lines.at(-1)!.usage, response.usage);
  const streamCall = await readCall(h, lines[0]!._meta.weave_call_id);
  assert.equal(streamCall.output.choices[0].message.content, response.choices[0].message.content);
});

test('a Provider object streams its SSE chunks as JSON lines; the call keeps them folded, with usage', async (t) => {
  const fake = await startStreamingProvider(t);
  const h = await buildTestApp(t, {});
  await publish(h, 'local', { base_url: fake.baseUrl, api_key_name: '', extra_headers: {} }, 'Provider');
  const inputs = { model: 'local/tiny', messages: MESSAGES, temperature: 0.5, stop: null };
  const res = await h.post('/completions/create_stream', { project_id: PROJECT, inputs });
  assert.equal(res.statusCode, 200, res.body);
  const lines = parseJsonl(res.body) as Json[];
  assert.deepEqual(
    lines.slice(1).map((line) => line.choices[0]?.delta.content ?? 'usage'),
    ['Hel', 'lo', 'usage'],
  );
  assert.equal(fake.bodies[0]!.stream, true);
  assert.equal(fake.bodies[0]!.model, 'tiny');
  assert.equal(fake.bodies[0]!.temperature, 0.5);
  assert.equal('stop' in fake.bodies[0]!, false, 'unset parameters are not sent');

  const call = await readCall(h, lines[0]!._meta.weave_call_id);
  assert.deepEqual(call.output.choices, [
    { index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' },
  ]);
  assert.deepEqual(call.summary.usage, {
    tiny: { requests: 1, prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
  });
  assert.equal(call.ended_at !== null, true);
});

test("a prompt ref's messages come first and template_vars fill both; the call keeps the request's own messages", async (t) => {
  const fake = await startStreamingProvider(t);
  const h = await buildTestApp(t, {});
  await publish(h, 'local', { base_url: fake.baseUrl, api_key_name: '', extra_headers: {} }, 'Provider');
  const prompt = await publish(h, 'greeter', {
    _type: 'MessagesPrompt',
    _class_name: 'MessagesPrompt',
    _bases: ['Prompt', 'Object', 'BaseModel'],
    messages: [{ role: 'system', content: 'You greet {name}.' }],
  });
  const inputs = {
    model: 'local/tiny',
    messages: [{ role: 'user', content: 'Greet {name} in {lang}.' }],
    prompt,
    template_vars: { name: 'Ada', lang: 'French' },
  };
  const res = await h.post('/completions/create', { project_id: PROJECT, inputs });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(fake.bodies[0]!.messages, [
    { role: 'system', content: 'You greet Ada.' },
    { role: 'user', content: 'Greet Ada in French.' },
  ]);
  assert.equal('prompt' in fake.bodies[0]!, false);
  const call = await readCall(h, res.json().weave_call_id);
  assert.deepEqual(call.inputs, inputs);
});

test('failures: a failing provider answers response.error and the call ends with it; bad input is a 4xx', async (t) => {
  const fake = await startStreamingProvider(t);
  const h = await buildTestApp(t, { HEDDLE_PROVIDER_MAX_RETRIES: '0' });
  await publish(h, 'local', { base_url: fake.baseUrl, api_key_name: '', extra_headers: {} }, 'Provider');

  const boom = await h.post('/completions/create', {
    project_id: PROJECT,
    inputs: { model: 'local/boom', messages: MESSAGES },
  });
  assert.equal(boom.statusCode, 200, boom.body);
  assert.match(boom.json().response.error, /answered 500: upstream broke/);
  assert.match((await readCall(h, boom.json().weave_call_id)).exception, /upstream broke/);

  const streamBoom = await h.post('/completions/create_stream', {
    project_id: PROJECT,
    inputs: { model: 'local/boom', messages: MESSAGES },
  });
  const lines = parseJsonl(streamBoom.body) as Json[];
  assert.match(lines.at(-1)!.error, /upstream broke/);
  assert.match((await readCall(h, lines[0]!._meta.weave_call_id)).exception, /upstream broke/);

  // no provider of that name: an answer that says so, and nothing recorded
  const before = await callCount(h);
  const unknown = await h.post('/completions/create', {
    project_id: PROJECT,
    inputs: { model: 'nowhere/x', messages: [] },
  });
  assert.equal(unknown.statusCode, 200, unknown.body);
  assert.match(unknown.json().response.error, /Unknown provider "nowhere"/);
  assert.equal(await callCount(h), before);

  const inputs = { model: 'local/tiny', messages: MESSAGES };
  const cases: Array<[string, unknown, number, string | null]> = [
    ['no model', { project_id: PROJECT, inputs: { messages: [] } }, 422, null],
    ['unknown top-level field', { project_id: PROJECT, inputs, temperature: 1 }, 422, null],
    ['a prompt that is not a ref', { project_id: PROJECT, inputs: { ...inputs, prompt: 'hello' } }, 400, null],
    [
      'a prompt of no object',
      { project_id: PROJECT, inputs: { ...inputs, prompt: `weave:///${PROJECT}/object/none:latest` } },
      404,
      null,
    ],
    ['another entity', { project_id: 'other/p', inputs }, 403, null],
  ];
  for (const [name, body, status] of cases) {
    const res = await h.post('/completions/create', body);
    assert.equal(res.statusCode, status, `${name}: ${res.body}`);
    const streamed = await h.post('/completions/create_stream', body);
    assert.equal(streamed.statusCode, status, `${name} (stream): ${streamed.body}`);
  }
  const viewer = (await h.post('/keys/create', { entity: 'acme', username: 'vera', role: 'viewer' })).json();
  const refused = await h.post('/completions/create', { project_id: PROJECT, inputs }, viewer.key);
  assert.equal(refused.statusCode, 403, refused.body);
});
