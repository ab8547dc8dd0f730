import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createModel } from './training-fixture.js';

/**
 * Inference routing to external workers (docs/training-worker-protocol.md, "Inference"): a worker
 * that advertises an endpoint with its lease answers `/v1/chat/completions` for its base model's
 * checkpoints; Heddle forwards the request with the worker's token and the checkpoint it names.
 * The worker here is a real HTTP server that records what it receives.
 */

const GPU = 'test/gpu-base-model';
const TOKEN = 'worker-token-0123456789';

interface Received {
  auth: string | undefined;
  body: Record<string, any>;
}

async function fakeWorker(t: TestContext, status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(data) as Record<string, any>;
      received.push({ auth: req.headers.authorization, body });
      res.writeHead(status, { 'content-type': 'application/json' });
      const choice = { index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: 'stop' };
      res.end(JSON.stringify(status === 200 ? { choices: [choice], usage: {} } : { detail: 'CUDA out of memory' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function lease(h: TestApp, url: string | undefined, key?: string) {
  const body = url === undefined ? {} : { inference_url: url, inference_token: TOKEN };
  return h.post('/v1/workers/lease', { worker_id: 'gpu-1', base_models: [GPU], ...body }, key);
}

const complete = (h: TestApp, model: string, key?: string) =>
  h.post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], logprobs: true }, key);

test('completions for a served base model go to the worker, with its token and the checkpoint', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const worker = await fakeWorker(t);
  const modelId = await createModel(h, 'gpu-bot', GPU);
  assert.equal((await lease(h, worker.url)).statusCode, 200);

  const first = await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step0');
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().model, 'wandb-artifact:///acme/rl/gpu-bot:step0');
  assert.equal(first.json().object, 'chat.completion');
  assert.equal(first.json().choices[0].message.content, 'a');
  assert.equal(worker.received[0]!.auth, `Bearer ${TOKEN}`);
  assert.deepEqual(worker.received[0]!.body.heddle_checkpoint, {
    base_model: GPU,
    model_id: modelId,
    step: 0,
    checkpoint_id: null,
  });
  assert.equal(worker.received[0]!.body.logprobs, true);

  // a job completed by the worker makes step 1; the worker can download it by model and step
  const created = await h.post('/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: [] });
  assert.equal(created.statusCode, 200, created.body);
  const job = (await lease(h, worker.url)).json().job as { id: string; fencing_token: number };
  const done = await h.post(`/v1/workers/jobs/${job.id}/complete`, {
    fencing_token: job.fencing_token,
    checkpoint_base64: Buffer.from('adapter bytes').toString('base64'),
    num_gradient_steps: 1,
  });
  assert.equal(done.statusCode, 200, done.body);
  const second = await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step1');
  assert.equal(second.statusCode, 200, second.body);
  assert.deepEqual(worker.received[1]!.body.heddle_checkpoint, {
    base_model: GPU,
    model_id: modelId,
    step: 1,
    checkpoint_id: done.json().checkpoint_id,
  });
  // the newest checkpoint (no :step) is step 1 too
  assert.equal((await complete(h, 'wandb-artifact:///acme/rl/gpu-bot')).statusCode, 200);
  assert.equal(worker.received[2]!.body.heddle_checkpoint.step, 1);

  const bytes = await h.get(`/v1/workers/models/${modelId}/checkpoints/1`);
  assert.equal(bytes.statusCode, 200);
  assert.equal(bytes.headers['content-type'], 'application/octet-stream');
  assert.equal(bytes.headers['x-heddle-checkpoint-id'], done.json().checkpoint_id);
  assert.equal(bytes.rawPayload.toString(), 'adapter bytes');
  assert.equal((await h.get(`/v1/workers/models/${modelId}/checkpoints/2`)).statusCode, 404);
  assert.equal((await h.get(`/v1/workers/models/${modelId}/checkpoints/1`, h.bobKey)).statusCode, 403);
  assert.equal((await h.get(`/v1/workers/models/nope/checkpoints/1`)).statusCode, 404);
  assert.equal((await h.get(`/v1/workers/models/${modelId}/checkpoints/x`)).statusCode, 422);

  const health = await h.get('/v1/health', null);
  assert.deepEqual(health.json().workers, { live: 1, base_models: [GPU], inference_base_models: [GPU] });

  // the worker withdraws its endpoint: its checkpoints cannot be served by anyone else
  await lease(h, undefined);
  const orphan = await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step1');
  assert.equal(orphan.statusCode, 503);
  assert.equal(
    orphan.json().detail,
    `No live worker serves completions for base model ${GPU} (step 1 was trained by worker:gpu-1)`,
  );
});

test('a worker without an endpoint, or the built-in base model, is not routed; bad endpoints are 400', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  await createModel(h, 'gpu-bot', GPU);
  assert.equal((await lease(h, undefined)).statusCode, 200);
  // no trainer in this app and no endpoint: nothing can answer
  assert.equal((await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step0')).statusCode, 503);
  for (const bad of ['not a url', 'ftp://gpu:21/']) {
    const res = await lease(h, bad);
    assert.equal(res.statusCode, 400, res.body);
  }
  const noToken = await h.post('/v1/workers/lease', { worker_id: 'w', base_models: [GPU], inference_url: 'http://x' });
  assert.equal(noToken.statusCode, 400, noToken.body);
});

test('a failing or unreachable worker is a 502 with the reason', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const worker = await fakeWorker(t, 500);
  await createModel(h, 'gpu-bot', GPU);
  await lease(h, worker.url);
  const failed = await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step0');
  assert.equal(failed.statusCode, 502, failed.body);
  assert.match(failed.json().detail, /Training worker gpu-1 failed: CUDA out of memory/);
  // a port nothing listens on
  const gone = http.createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const port = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  await lease(h, `http://127.0.0.1:${port}`);
  const unreachable = await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step0');
  assert.equal(unreachable.statusCode, 502);
  assert.match(unreachable.json().detail, /Training worker gpu-1 is unreachable/);
});

test('binary checkpoint upload completes the job with the raw bytes and the metrics header', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const modelId = await createModel(h, 'gpu-bot', GPU);
  assert.equal(
    (await h.post('/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: [] })).statusCode,
    200,
  );
  const job = (await lease(h, undefined)).json().job as { id: string; fencing_token: number };
  const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  const upload = (query: string, headers: Record<string, string> = {}, key = h.aliceKey, payload: Buffer = bytes) =>
    h.app.inject({
      method: 'POST',
      url: `/v1/workers/jobs/${job.id}/checkpoint?${query}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', ...headers },
      payload,
    });
  const ok = `fencing_token=${job.fencing_token}&num_gradient_steps=3`;
  assert.equal((await upload(ok, {}, h.bobKey)).statusCode, 403);
  assert.equal((await upload(`fencing_token=${job.fencing_token + 1}&num_gradient_steps=3`)).statusCode, 409);
  assert.equal((await upload(ok, { 'x-heddle-metrics': '{"loss": "x"}' })).statusCode, 400);
  assert.equal((await upload(ok, { 'x-heddle-metrics': 'nope' })).statusCode, 400);
  assert.equal((await upload('fencing_token=1')).statusCode, 422);
  const json = await h.app.inject({
    method: 'POST',
    url: `/v1/workers/jobs/${job.id}/checkpoint?${ok}`,
    headers: { authorization: `Bearer ${h.aliceKey}`, 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(json.statusCode, 415, json.body);

  const done = await upload(ok, { 'x-heddle-metrics': '{"loss": 0.25}' });
  assert.equal(done.statusCode, 200, done.body);
  assert.equal(done.json().step, 1);
  const back = await h.get(`/v1/workers/models/${modelId}/checkpoints/1`);
  assert.ok(Buffer.compare(back.rawPayload, bytes) === 0, 'the stored checkpoint is the uploaded bytes');
  const checkpoints = await h.get(`/v1/preview/models/${modelId}/checkpoints`);
  assert.equal(checkpoints.json().data[0].metrics['train/loss'], 0.25, checkpoints.body);
  // the job is finished: a second upload is refused
  assert.equal((await upload(ok)).statusCode, 409);
});

test("a running job's heartbeats keep its worker (and endpoint) live past the TTL", async (t) => {
  const h = await buildTestApp(t, {
    HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false',
    HEDDLE_TRAINING_WORKER_TTL_SECONDS: '1',
  });
  const worker = await fakeWorker(t);
  const modelId = await createModel(h, 'gpu-bot', GPU);
  assert.equal(
    (await h.post('/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: [] })).statusCode,
    200,
  );
  const job = (await lease(h, worker.url)).json().job as { id: string; fencing_token: number };
  const live = async () => (await h.get('/v1/health', null)).json().workers.live as number;
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 600));
    const beat = await h.post(`/v1/workers/jobs/${job.id}/heartbeat`, { fencing_token: job.fencing_token });
    assert.equal(beat.statusCode, 200, beat.body);
  }
  // 1.8 s after the lease request, still live through the heartbeats; routed completions still go there
  assert.equal(await live(), 1);
  assert.equal((await complete(h, 'wandb-artifact:///acme/rl/gpu-bot:step0')).statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  assert.equal(await live(), 0);
});
