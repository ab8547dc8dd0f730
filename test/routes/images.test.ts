import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { digestBytes } from '../../src/domain/digest.js';
import { buildTestApp, parseJsonl, PROJECT } from '../helpers/app.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a464946', 'hex');

interface FakeProvider {
  baseUrl: string;
  requests: Array<{ url: string; authorization: string | undefined; body: Record<string, unknown> }>;
}

/** A small OpenAI-compatible image provider on 127.0.0.1: b64 image for index 0, a downloadable URL for index 1. */
async function startFakeProvider(t: TestContext, status = 200): Promise<FakeProvider> {
  const requests: FakeProvider['requests'] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/files/pic.jpg') {
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
        return;
      }
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(text) });
      if (status !== 200) {
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'quota exceeded' } }));
        return;
      }
      const { port } = server.address() as AddressInfo;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          created: 1700000000,
          data: [
            { b64_json: PNG.toString('base64'), revised_prompt: 'a cat' },
            { url: `http://127.0.0.1:${port}/files/pic.jpg` },
          ],
          usage: { input_tokens: 10, output_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

const BODY = { project_id: PROJECT, inputs: { model: 'gpt-image-1', prompt: 'a cat', n: 2 }, unknown_key: 1 };

test('§6.4 without OPENAI_API_KEY /image/create answers the error inside a 200 and writes nothing', async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/image/create', BODY);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { response: { error: 'No OpenAI API key found' }, weave_call_id: null });
  assert.deepEqual((await h.post('/files/query_stats', { project_id: PROJECT })).json(), { total_size_bytes: 0 });
  assert.deepEqual(parseJsonl((await h.post('/calls/stream_query', { project_id: PROJECT })).body), []);
  assert.equal((await h.post('/image/create', BODY, h.bobKey)).statusCode, 403);
});

test('§6.4 /image/create stores each image as Content files and records a call (fake provider on 127.0.0.1)', async (t) => {
  const provider = await startFakeProvider(t);
  const h = await buildTestApp(t, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseUrl });
  assert.equal((await h.post('/image/create', BODY, h.bobKey)).statusCode, 403);
  assert.equal(provider.requests.length, 0);
  const res = await h.post('/image/create', BODY);
  assert.equal(res.statusCode, 200, res.body);
  const { response, weave_call_id: callId } = res.json();
  assert.deepEqual(provider.requests, [
    {
      url: '/v1/images/generations',
      authorization: 'Bearer sk-test',
      body: { model: 'gpt-image-1', prompt: 'a cat', n: 2 },
    },
  ]);
  assert.equal(response.model, 'gpt-image-1');
  assert.deepEqual(response.usage, {
    input_tokens: 10,
    output_tokens: 20,
    prompt_tokens: 10,
    completion_tokens: 20,
    total_tokens: 30,
  });
  assert.equal(response.data.length, 2);
  const images = [PNG, JPEG];
  for (const [i, item] of response.data.entries()) {
    assert.equal(item._type, 'CustomWeaveType');
    assert.deepEqual(item.weave_type, { type: 'weave.type_wrappers.Content.content.Content' });
    assert.equal(item.url, undefined);
    assert.equal(item.b64_json, undefined);
    assert.equal(item.files.content, digestBytes(images[i]!));
    const content = await h.post('/file/content', { project_id: PROJECT, digest: item.files.content });
    assert.deepEqual(content.rawPayload, images[i]);
    const meta = JSON.parse(
      (await h.post('/file/content', { project_id: PROJECT, digest: item.files['metadata.json'] })).body,
    );
    assert.equal(meta.mimetype, i === 0 ? 'image/png' : 'image/jpeg');
    assert.equal(meta.size, images[i]!.length);
  }
  assert.equal(response.data[0].revised_prompt, 'a cat');
  const [call] = parseJsonl(
    (await h.post('/calls/stream_query', { project_id: PROJECT, filter: { call_ids: [callId] } })).body,
  );
  assert.ok(call !== undefined);
  assert.equal(call.op_name, 'weave.image_generation_create');
  assert.deepEqual(call.inputs, BODY.inputs);
  assert.deepEqual(call.output, response);
  assert.equal(call.wb_user_id !== null, true);
  const usage = (call.summary as { usage: Record<string, Record<string, number>> }).usage['gpt-image-1']!;
  assert.equal(usage.prompt_tokens, 10);
  assert.equal(usage.total_tokens, 30);
});

test('§6.4 dall-e-3 forces n=1; track_llm_call=false records no call; provider errors stay inside a 200', async (t) => {
  const provider = await startFakeProvider(t);
  const h = await buildTestApp(t, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseUrl });
  const res = await h.post('/image/create', {
    project_id: PROJECT,
    inputs: { model: 'dall-e-3', prompt: 'p', n: 4 },
    track_llm_call: false,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().weave_call_id, null);
  assert.equal(provider.requests[0]!.body.n, 1);
  assert.deepEqual(parseJsonl((await h.post('/calls/stream_query', { project_id: PROJECT })).body), []);

  const failing = await startFakeProvider(t, 429);
  const h2 = await buildTestApp(t, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: failing.baseUrl });
  const err = await h2.post('/image/create', BODY);
  assert.equal(err.statusCode, 200);
  assert.equal(err.json().weave_call_id, null);
  assert.match(err.json().response.error, /429.*quota exceeded/);
  assert.deepEqual(parseJsonl((await h2.post('/calls/stream_query', { project_id: PROJECT })).body), []);
  const down = await buildTestApp(t, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' });
  const unreachable = await down.post('/image/create', BODY);
  assert.equal(unreachable.statusCode, 200);
  assert.match(unreachable.json().response.error, /^Image generation failed/);
});
