import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { nowMicros } from '../../src/domain/time.js';
import { applyCutoff } from '../../src/services/retention/retention-job.js';
import { buildTestApp, parseJsonl, PROJECT, type TestApp } from '../helpers/app.js';
import { makeEnd, makeStart } from '../helpers/factories.js';
import { start } from '../store/contract/parts.js';

/** Retention over HTTP (docs/export.md "Retention"), on the store HEDDLE_TEST_STORE selects. */

const DAY_MS = 86_400_000;
const daysAgo = (days: number): string => new Date(Date.now() - days * DAY_MS).toISOString();

async function ok(h: TestApp, url: string, body: unknown, key?: string) {
  const res = await h.post(url, body, key);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res;
}

async function inject(h: TestApp, method: 'PUT' | 'DELETE', url: string, body?: unknown, key?: string) {
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`api:${key ?? h.aliceKey}`).toString('base64')}`,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return h.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
}

/** 3 calls 40 days old (one with feedback), 2 calls from yesterday (one with feedback). */
async function seed(h: TestApp, projectId = PROJECT): Promise<void> {
  const calls = [
    ['old1', 40],
    ['old2', 41],
    ['old3', 42],
    ['new1', 1],
    ['new2', 1],
  ] as const;
  for (const [id, days] of calls) {
    await ok(h, '/call/start', makeStart({ id, project_id: projectId, started_at: daysAgo(days) }));
    await ok(h, '/call/end', makeEnd(id, { project_id: projectId, ended_at: daysAgo(days - 0.5) }));
  }
  for (const id of ['old1', 'new1'])
    await ok(h, '/feedback/create', {
      project_id: projectId,
      weave_ref: `weave:///${projectId}/call/${id}`,
      feedback_type: 'note',
      payload: { note: id },
    });
}

const callIds = async (h: TestApp, projectId = PROJECT): Promise<string[]> =>
  parseJsonl((await ok(h, '/calls/stream_query', { project_id: projectId })).body)
    .map((c) => c.id as string)
    .sort();

async function waitForJob(h: TestApp, jobId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i += 1) {
    const res = await h.get(`/projects/acme/demo/retention/jobs/${jobId}`);
    assert.equal(res.statusCode, 200, res.body);
    const job = res.json();
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    await sleep(50);
  }
  throw new Error(`retention job ${jobId} did not finish`);
}

test('a policy is set, dry-run, applied by a job; newer calls and other projects stay', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' });
  await seed(h);
  await seed(h, 'acme/keep');
  assert.deepEqual((await h.get('/projects/acme/demo/retention')).json(), { project_id: PROJECT, keep_days: null });

  const dry = await inject(h, 'PUT', '/projects/acme/demo/retention?dry_run=true', { keep_days: 30 });
  assert.equal(dry.statusCode, 200, dry.body);
  assert.deepEqual(dry.json().would_delete, {
    calls: 3,
    feedback: 1,
    annotation_queue_items: 0,
    annotation_item_progress: 0,
  });
  assert.equal(dry.json().keep_days, null, 'a dry run stores nothing');

  const put = await inject(h, 'PUT', '/projects/acme/demo/retention', { keep_days: 30 });
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(put.json().keep_days, 30);
  assert.equal(put.json().last_run, null);
  assert.equal((await h.get('/projects/acme/demo/retention')).json().keep_days, 30);

  const applyDry = (await ok(h, '/projects/acme/demo/retention/apply', { dry_run: true })).json();
  assert.equal(applyDry.dry_run, true);
  assert.equal(applyDry.keep_days, 30);
  assert.equal(applyDry.would_delete.calls, 3);
  assert.equal(applyDry.job_id, undefined);
  assert.equal((await callIds(h)).length, 5, 'a dry run deletes nothing');
  // a dry run with another horizon than the policy's
  assert.equal(
    (await ok(h, '/projects/acme/demo/retention/apply', { dry_run: true, keep_days: 41 })).json().would_delete.calls,
    2,
  );

  const applied = (await ok(h, '/projects/acme/demo/retention/apply', {})).json();
  assert.equal(applied.dry_run, false);
  assert.ok(applied.job_id);
  const job = await waitForJob(h, applied.job_id);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  assert.deepEqual(await callIds(h), ['new1', 'new2']);
  const fb = (await ok(h, '/feedback/query', { project_id: PROJECT })).json().result as { weave_ref: string }[];
  assert.deepEqual(
    fb.map((f) => f.weave_ref),
    [`weave:///${PROJECT}/call/new1`],
  );
  const after = (await h.get('/projects/acme/demo/retention')).json();
  assert.equal(after.last_run.deleted_calls, 3);
  assert.equal((await callIds(h, 'acme/keep')).length, 5);
});

test('bad input and other entities get 4xx', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' });
  for (const keep_days of [0, -1, 1.5, 'x', 36_501]) {
    const res = await inject(h, 'PUT', '/projects/acme/demo/retention', { keep_days });
    assert.equal(res.statusCode, 422, `${keep_days}: ${res.body}`);
  }
  assert.equal((await inject(h, 'PUT', '/projects/acme/demo/retention', {})).statusCode, 422);
  const none = await h.post('/projects/acme/demo/retention/apply', { dry_run: true });
  assert.equal(none.statusCode, 400, none.body);
  assert.match(none.json().reason, /no retention policy/);
  assert.equal((await inject(h, 'DELETE', '/projects/acme/demo/retention')).statusCode, 404);
  assert.equal((await h.get('/projects/acme/demo/retention/jobs/nope')).statusCode, 404);
  assert.equal((await h.get('/projects/acme/demo/retention', h.bobKey)).statusCode, 403);
  assert.equal((await inject(h, 'PUT', '/projects/acme/demo/retention', { keep_days: 3 }, h.bobKey)).statusCode, 403);
  assert.equal((await h.post('/projects/acme/demo/retention/apply', { keep_days: 3 }, h.bobKey)).statusCode, 403);
  assert.equal((await h.get('/projects/acme/a%20b/retention')).statusCode, 400);
  // set, then removed
  assert.equal((await inject(h, 'PUT', '/projects/acme/demo/retention', { keep_days: 3 })).statusCode, 200);
  const removed = await inject(h, 'DELETE', '/projects/acme/demo/retention');
  assert.equal(removed.statusCode, 200, removed.body);
  assert.equal((await h.get('/projects/acme/demo/retention')).json().keep_days, null);
});

test('the scheduler applies a new policy by itself', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0.1' });
  await seed(h);
  assert.equal((await inject(h, 'PUT', '/projects/acme/demo/retention', { keep_days: 30 })).statusCode, 200);
  for (let i = 0; i < 200 && (await callIds(h)).length !== 2; i += 1) await sleep(50);
  assert.deepEqual(await callIds(h), ['new1', 'new2']);
  for (let i = 0; i < 100 && (await h.get('/projects/acme/demo/retention')).json().last_run === null; i += 1)
    await sleep(50);
  const policy = (await h.get('/projects/acme/demo/retention')).json();
  assert.equal(policy.last_run.deleted_calls, 3);
  assert.ok(Date.parse(policy.next_run_at) > Date.now() + 3_000_000, 'the next run is an interval later');
});

test('ingest goes on while retention deletes in batches', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_RETENTION_CHECK_SECONDS: '0' });
  const old = nowMicros() - 60 * DAY_MS * 1000;
  const parts = [];
  for (let i = 0; i < 6_000; i += 1) parts.push(start(PROJECT, `old-${i}`, { started_at: old + i }));
  for (let i = 0; i < parts.length; i += 1_000) await h.store.calls.write(parts.slice(i, i + 1_000));

  let deletionDone = 0;
  const writesDone: number[] = [];
  // small batches: 60 transactions, between which ingest must get its turns
  const deletion = (async () => {
    let total = 0;
    for (;;) {
      const b = await h.store.retention.deleteExpiredBatch(PROJECT, nowMicros() - 30 * DAY_MS * 1000, {
        batchRows: 100,
      });
      total += b.calls;
      if (b.calls === 0) break;
    }
    deletionDone = performance.now();
    return total;
  })();
  const writer = (async () => {
    for (let i = 0; i < 20; i += 1) {
      await ok(h, '/call/start', makeStart({ id: `live-${i}`, started_at: new Date().toISOString() }));
      writesDone.push(performance.now());
    }
  })();
  const [deleted] = await Promise.all([deletion, writer]);
  assert.equal(deleted, 6_000);
  assert.ok(
    writesDone[0]! < deletionDone,
    `the first write (${writesDone[0]}) must not wait for the whole deletion (${deletionDone})`,
  );
  const ids = await callIds(h);
  assert.equal(ids.length, 20);
  assert.ok(ids.every((id) => id.startsWith('live-')));
  // a whole run (the job's body) after it finds nothing left and reports the space mode
  const run = await applyCutoff(h.store.retention, PROJECT, nowMicros() - 30 * DAY_MS * 1000);
  assert.equal(run.deleted.calls, 0);
  assert.equal(run.space.mode, h.store.kind === 'sqlite' ? 'incremental' : 'autovacuum');
});
