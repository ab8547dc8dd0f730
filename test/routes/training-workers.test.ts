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

test('release: a job handed back before any event is queued again and leased anew; after an event it fails at once', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const job = await leasedJob(h);
  const release = (id: string, body: unknown, key?: string) => h.post(`/v1/workers/jobs/${id}/release`, body, key);

  // another entity's key, an unknown job, a stale token and a malformed body are refused
  assert.equal((await release(job.id, { fencing_token: job.fencing_token }, h.bobKey)).statusCode, 403);
  assert.equal((await release('0190b7a2-0000-7000-8000-000000000000', { fencing_token: 1 })).statusCode, 404);
  assert.equal((await release(job.id, { fencing_token: job.fencing_token + 1 })).statusCode, 409);
  const bad = await release(job.id, { fencing_token: 'one' });
  assert.equal(bad.statusCode, 422, bad.body);

  const back = await release(job.id, { fencing_token: job.fencing_token, reason: 'SIGTERM' });
  assert.equal(back.statusCode, 200, back.body);
  assert.deepEqual(back.json(), { status: 'queued' });
  const queued = await h.get(`/v1/preview/training-jobs/${job.id}`);
  assert.equal(queued.json().status, 'queued', queued.body);
  // the old holder's token is stale now; the next lease takes the same job with a new token
  const late = await h.post(`/v1/workers/jobs/${job.id}/heartbeat`, { fencing_token: job.fencing_token });
  assert.equal(late.statusCode, 409, late.body);
  const again = await h.post('/v1/workers/lease', { worker_id: 'w2', base_models: [GPU] });
  const job2 = again.json().job as { id: string; fencing_token: number; parent_step: number };
  assert.equal(job2.id, job.id);
  assert.ok(job2.fencing_token > job.fencing_token);
  assert.equal(job2.parent_step, 0);
  const record = await h.get(`/v1/preview/training-jobs/${job.id}`);
  assert.equal(record.json().trainer, 'worker:w2');

  // once the holder published an event, handing back fails the job with the reason (no re-queue)
  const started = await h.post(`/v1/workers/jobs/${job.id}/events`, {
    fencing_token: job2.fencing_token,
    seq: 1,
    type: 'training_started',
    data: { num_sequences: 2 },
  });
  assert.equal(started.statusCode, 200, started.body);
  const gone = await release(job.id, { fencing_token: job2.fencing_token, reason: 'SIGTERM' });
  assert.equal(gone.statusCode, 200, gone.body);
  assert.deepEqual(gone.json(), { status: 'failed' });
  const events = await h.get(`/v1/preview/training-jobs/${job.id}/events`);
  const last = (events.json().data as { type: string; data: { error_message: string } }[]).at(-1)!;
  assert.equal(last.type, 'training_failed');
  assert.match(last.data.error_message, /stopped while the job was running \(SIGTERM\)/);
  const twice = await release(job.id, { fencing_token: job2.fencing_token });
  assert.equal(twice.statusCode, 409);
  assert.deepEqual(twice.json(), { detail: 'The job has already finished' });
});
