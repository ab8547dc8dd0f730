import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createModel } from './training-fixture.js';

/**
 * The external worker routes (src/routes/training-workers.ts, docs/training-worker-protocol.md)
 * in process; test/training-worker/ runs the same protocol between two real processes.
 */

const GPU = 'test/gpu-base-model';

/** A job on a base model only an external worker serves, leased by worker `w1`. */
async function leasedJob(h: TestApp): Promise<{ id: string; fencing_token: number }> {
  const modelId = await createModel(h, 'gpu-bot', GPU);
  const created = await h.post('/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: [] });
  assert.equal(created.statusCode, 200, created.body);
  const leased = await h.post('/v1/workers/lease', { worker_id: 'w1', base_models: [GPU] });
  assert.equal(leased.statusCode, 200, leased.body);
  const job = leased.json().job as { id: string; fencing_token: number };
  assert.equal(job.id, created.json().id);
  return job;
}

test('parent checkpoint: the lease holder gets the bytes; any other fencing token is 409, and so is a finished job', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const job = await leasedJob(h);
  const parent = (token: number) => h.get(`/v1/workers/jobs/${job.id}/parent-checkpoint?fencing_token=${token}`);

  const held = await parent(job.fencing_token);
  assert.equal(held.statusCode, 200, held.body);
  assert.equal(held.headers['content-type'], 'application/octet-stream');
  assert.equal(held.headers['x-heddle-parent-step'], '0');
  assert.equal(held.rawPayload.length, 0);

  for (const stale of [job.fencing_token + 1, job.fencing_token - 1, 0]) {
    const res = await parent(stale);
    assert.equal(res.statusCode, 409, `token ${stale}: ${res.body}`);
    assert.deepEqual(res.json(), { detail: 'Stale fencing token: the lease is held by someone else or has expired' });
  }

  const failed = await h.post(`/v1/workers/jobs/${job.id}/fail`, {
    fencing_token: job.fencing_token,
    error_message: 'out of memory',
  });
  assert.equal(failed.statusCode, 200, failed.body);
  const finished = await parent(job.fencing_token);
  assert.equal(finished.statusCode, 409);
  assert.deepEqual(finished.json(), { detail: 'The job has already finished' });
});
