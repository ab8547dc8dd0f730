import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TEST_STORE } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * The external worker protocol (docs/training-worker-protocol.md) between two real processes: a
 * Heddle server and a worker script (external-worker.ts) speaking HTTP. Lease expiry, stale
 * fencing tokens, idempotent events, queue timeout, model deleted mid-job (issue 7; item 34).
 */

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'external-worker.ts');
const GPU = 'test/gpu-base-model';

interface Line {
  step: string;
  data: { status?: number; body?: unknown } & Record<string, unknown>;
}

async function server(t: TestContext, env: Record<string, string>): Promise<{ s: ServerProcess; key: string }> {
  const database = TEST_STORE === 'postgres' ? await createTestDatabase() : null;
  if (database) t.after(() => database.release());
  const s = await startServerProcess(t, {
    env: { HEDDLE_TRAINING_SWEEP_SECONDS: '0.1', ...(database ? { HEDDLE_DATABASE_URL: database.url } : {}), ...env },
  });
  return { s, key: await s.createKey('acme', { user: 'alice' }) };
}

async function api(
  s: ServerProcess,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${s.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Runs the worker script to its end; returns its JSON lines. */
function runWorker(
  s: ServerProcess,
  key: string,
  env: Record<string, string>,
  onLine?: (line: Line) => void,
): Promise<Line[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: REPO_ROOT,
    env: { ...process.env, HEDDLE_URL: s.url, HEDDLE_KEY: key, WORKER_BASE_MODELS: GPU, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, nl)) as Line;
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      onLine?.(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 60_000);
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(lines);
      else reject(new Error(`worker exited with ${code}: ${stderr.slice(-2000)}`));
    }),
  );
}

async function events(
  s: ServerProcess,
  key: string,
  jobId: string,
  timeoutMs = 20_000,
): Promise<Array<{ type: string; data: any }>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const page = await api(s, key, 'GET', `/v1/preview/training-jobs/${jobId}/events?limit=100`);
    const data = page.json.data as Array<{ type: string; data: any }>;
    if (data.some((e) => e.type === 'training_ended' || e.type === 'training_failed') || Date.now() > deadline)
      return data;
    await sleep(100);
  }
}

const find = (lines: Line[], step: string): Line['data'] => {
  const line = lines.find((l) => l.step === step);
  assert.ok(line, `worker printed no ${step}: ${JSON.stringify(lines)}`);
  return line.data;
};

async function model(s: ServerProcess, key: string, name: string): Promise<string> {
  return (await api(s, key, 'POST', '/v1/preview/models', { project: 'gpu', name, base_model: GPU })).json.id;
}

test('an external worker trains a job end to end: idempotent event retries, a wrong token is 409, the checkpoint lands as step 1', async (t) => {
  const { s, key } = await server(t, {});
  // The worker advertises its base model first, so the built-in fallback (on by default) leaves its jobs alone.
  await runWorker(s, key, { WORKER_SCENARIO: 'advertise' });
  const m = await model(s, key, 'a');
  const job = (await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;
  const lines = await runWorker(s, key, { WORKER_SCENARIO: 'normal' });
  assert.deepEqual(find(lines, 'leased').id, job);
  assert.deepEqual(find(lines, 'parent'), { status: 200, step: '0', bytes: '' });
  const started = find(lines, 'started') as unknown as {
    first: { status: number; body: { id: string } };
    retry: { status: number; body: { id: string } };
  };
  assert.deepEqual(
    [started.first.status, started.retry.status, started.retry.body.id],
    [200, 200, started.first.body.id],
  );
  assert.equal(find(lines, 'wrong_token').status, 409);
  assert.equal(find(lines, 'gradient').status, 200);
  assert.equal(find(lines, 'heartbeat').status, 200);
  assert.deepEqual(find(lines, 'complete'), {
    status: 200,
    body: { step: 1, checkpoint_id: (find(lines, 'complete').body as { checkpoint_id: string }).checkpoint_id },
  });
  assert.equal(find(lines, 'after_complete').status, 409);
  const list = await events(s, key, job);
  assert.deepEqual(
    list.map((e) => e.type),
    ['training_started', 'gradient_step', 'training_ended'],
  );
  const view = (await api(s, key, 'GET', `/v1/preview/training-jobs/${job}`)).json;
  assert.deepEqual([view.status, view.trainer, view.step], ['succeeded', 'worker:w1', 1]);
  // A second job trains from the worker's checkpoint: its bytes come back on download.
  const job2 = (await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;
  const again = await runWorker(s, key, { WORKER_SCENARIO: 'normal' });
  assert.equal(find(again, 'leased').id, job2);
  assert.deepEqual(find(again, 'parent'), { status: 200, step: '1', bytes: 'worker-w1-from-0' });
  // Another entity's key leases nothing of acme's.
  const bob = await s.createKey('other', { user: 'bob' });
  await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] });
  const foreign = await api(s, bob, 'POST', '/v1/workers/lease', { worker_id: 'bob', base_models: [GPU] });
  assert.deepEqual(foreign.json, { job: null });
  assert.equal((await api(s, bob, 'POST', `/v1/workers/jobs/${job2}/heartbeat`, { fencing_token: 1 })).status, 403);
});

test('item 34: a worker that stops heartbeating loses the job: the sweeper fails it, late writes get 409', async (t) => {
  const { s, key } = await server(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const m = await model(s, key, 'b');
  const job = (await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;
  const lines = await runWorker(s, key, { WORKER_SCENARIO: 'stall', WORKER_STALL_MS: '2500' });
  assert.equal(find(lines, 'started').status, 200);
  assert.equal(find(lines, 'late_event').status, 409);
  assert.equal(find(lines, 'late_complete').status, 409);
  const list = await events(s, key, job);
  assert.deepEqual(
    list.map((e) => e.type),
    ['training_started', 'training_failed'],
  );
  assert.match(list[1]!.data.error_message, /lease expired/);
});

test('item 34: a job whose base model no live worker serves fails after the queue timeout (fallback disabled)', async (t) => {
  const { s, key } = await server(t, {
    HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false',
    HEDDLE_TRAINING_QUEUE_TIMEOUT_SECONDS: '1',
  });
  await runWorker(s, key, { WORKER_SCENARIO: 'advertise', WORKER_BASE_MODELS: 'some/other-model' });
  const m = await model(s, key, 'c');
  const job = (await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;
  const list = await events(s, key, job);
  assert.deepEqual(
    list.map((e) => e.type),
    ['training_failed'],
  );
  assert.match(
    list[0]!.data.error_message,
    /No trainer took the job within 1 s: no live worker serves base model test\/gpu-base-model/,
  );
});

test("deleting the model mid-job fails the job; the worker's next heartbeat is refused with 409", async (t) => {
  const { s, key } = await server(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const m = await model(s, key, 'd');
  const job = (await api(s, key, 'POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;
  const lines = await runWorker(s, key, { WORKER_SCENARIO: 'heartbeat-until-refused' }, (line) => {
    if (line.step === 'leased') void api(s, key, 'DELETE', `/v1/preview/models/${m}`);
  });
  const refused = find(lines, 'refused');
  assert.deepEqual([refused.status, refused.body], [409, { detail: 'The job has already finished' }]);
  const list = await events(s, key, job);
  assert.deepEqual(
    list.map((e) => [e.type, e.data.error_message]),
    [
      ['training_started', undefined],
      ['training_failed', 'Model was deleted'],
    ],
  );
});
