import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabase } from '../helpers/postgres.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * The training queue shared by two API processes on one PostgreSQL database: a worker may lease
 * through one node and write through the other; concurrent leases through both never hand out two
 * jobs of one model; both nodes' sweepers race on an expired lease and the job still ends with
 * exactly one `training_failed` (docs/spec/training.md §6; docs/training-worker-protocol.md).
 */

const GPU = 'test/gpu-base-model';

function client(s: ServerProcess, key: string) {
  return async (method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${s.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
}

test('two nodes share the training queue', { timeout: 240_000 }, async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const env = {
    HEDDLE_DATABASE_URL: url,
    HEDDLE_ADMIN_KEY: randomBytes(24).toString('hex'),
    HEDDLE_TRAINING_BUILTIN_RUNNER: 'false',
    HEDDLE_TRAINING_SWEEP_SECONDS: '0.1',
  };
  const [serverA, serverB] = await Promise.all([startServerProcess(t, { env }), startServerProcess(t, { env })]);
  const key = await serverA.createKey('acme', { user: 'alice' });
  const [a, b] = [client(serverA, key), client(serverB, key)];
  const model = async (name: string): Promise<string> =>
    (await a('POST', '/v1/preview/models', { project: 'gpu', name, base_model: GPU })).json.id;
  const job = async (m: string): Promise<string> =>
    (await a('POST', '/v1/preview/training-jobs', { model_id: m, trajectory_groups: [] })).json.id;

  await t.test('lease through one node, write through both: idempotent events, one checkpoint', async () => {
    const m = await model('x');
    const id = await job(m);
    const leased = (await b('POST', '/v1/workers/lease', { worker_id: 'w', base_models: [GPU] })).json.job;
    assert.equal(leased.id, id);
    const token = leased.fencing_token;
    const first = await a('POST', `/v1/workers/jobs/${id}/events`, {
      fencing_token: token,
      seq: 1,
      type: 'training_started',
      data: { num_sequences: 1 },
    });
    const retry = await b('POST', `/v1/workers/jobs/${id}/events`, {
      fencing_token: token,
      seq: 1,
      type: 'training_started',
      data: { num_sequences: 1 },
    });
    assert.deepEqual([first.status, retry.status, retry.json.id], [200, 200, first.json.id]);
    assert.equal(
      (
        await b('POST', `/v1/workers/jobs/${id}/events`, {
          fencing_token: token,
          seq: 2,
          type: 'gradient_step',
          data: { loss: 1 },
        })
      ).status,
      200,
    );
    const done = await a('POST', `/v1/workers/jobs/${id}/complete`, {
      fencing_token: token,
      checkpoint_base64: 'AAEC',
      num_gradient_steps: 1,
    });
    assert.equal(done.json.step, 1);
    const events = (await b('GET', `/v1/preview/training-jobs/${id}/events`)).json.data.map(
      (e: { type: string }) => e.type,
    );
    assert.deepEqual(events, ['training_started', 'gradient_step', 'training_ended']);
  });

  await t.test("concurrent leases through both nodes take each model's head job once", async () => {
    const heads: string[] = [];
    for (const name of ['p', 'q', 'r']) {
      const m = await model(name);
      heads.push(await job(m));
      await job(m);
    }
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b)('POST', '/v1/workers/lease', { worker_id: `w${i}`, base_models: [GPU] }),
      ),
    );
    const leased = answers.map((r) => r.json.job).filter((j) => j !== null);
    assert.deepEqual(leased.map((j: { id: string }) => j.id).sort(), [...heads].sort());
  });

  await t.test('both sweepers race on an expired lease: one training_failed', async () => {
    const m = await model('s');
    const id = await job(m);
    const leased = await a('POST', '/v1/workers/lease', { worker_id: 'slow', base_models: [GPU], lease_seconds: 1 });
    assert.equal(leased.json.job.id, id);
    for (let i = 0; i < 100 && (await b('GET', `/v1/preview/training-jobs/${id}`)).json.status === 'running'; i += 1)
      await sleep(100);
    await sleep(500); // both sweepers have had several more passes
    const events = (await a('GET', `/v1/preview/training-jobs/${id}/events`)).json.data;
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['training_failed'],
    );
  });
});
