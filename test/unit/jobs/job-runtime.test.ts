import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { uuidv7 } from '../../../src/domain/ids.js';
import { nowMicros } from '../../../src/domain/time.js';
import { JobQueue, JobRuntime, type JobHandler } from '../../../src/services/jobs/index.js';
import type { BackgroundJobRow } from '../../../src/store/job-types.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

/** The job runtime of a node (src/services/jobs/): runners, heartbeats, outcomes, shutdown, the sweeper. */

const PROJECT = 'acme/demo';
const quiet = { info() {}, warn() {}, error() {} };

async function open(t: TestContext): Promise<SqliteStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-jobs-'));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  t.after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

function runtime(t: TestContext, store: SqliteStore, handlers: Record<string, JobHandler>, leaseSeconds = 0.3) {
  const settings = { concurrency: 1, leaseSeconds, sweepSeconds: 0.05, maxAttempts: 2 };
  const rt = new JobRuntime(new JobQueue(store.jobs, settings), store.jobs, handlers);
  t.after(() => rt.stop());
  return rt;
}

async function settled(store: SqliteStore, id: string, statuses: string[]): Promise<BackgroundJobRow> {
  for (let i = 0; i < 200; i += 1) {
    const row = await store.jobs.get(PROJECT, id);
    if (row && statuses.includes(row.status)) return row;
    await sleep(20);
  }
  throw new Error(`job ${id} did not reach ${statuses.join('/')}`);
}

const newJob = (kind: string) => ({ project_id: PROJECT, id: uuidv7(), kind, input: '{}', created_by: 'u' });

test('a job outlives several lease periods by heartbeat, then succeeds; a throwing handler fails it with the reason', async (t) => {
  const store = await open(t);
  const failures: string[] = [];
  const rt = runtime(t, store, {
    slow: { run: () => sleep(1000) },
    boom: {
      run: async () => {
        throw new Error('provider exploded');
      },
      failed: async (_job, reason) => {
        failures.push(reason);
      },
    },
  });
  rt.start(quiet);
  const slow = newJob('slow');
  const boom = newJob('boom');
  await rt.enqueue([slow, boom]);
  const done = await settled(store, slow.id, ['succeeded', 'failed']);
  assert.deepEqual([done.status, done.attempts], ['succeeded', 1], 'never re-queued while heartbeating');
  const failed = await settled(store, boom.id, ['failed']);
  assert.deepEqual([failed.error_message, failed.attempts], ['provider exploded', 1]);
  // the hook runs once the failure is committed, so it may come just after the row reads failed
  for (let i = 0; i < 200 && failures.length === 0; i += 1) await sleep(20);
  assert.deepEqual(failures, ['provider exploded']);
});

test('shutdown aborts the handler and gives the job back without using an attempt', async (t) => {
  const store = await open(t);
  let started = false;
  const rt = runtime(t, store, {
    wait: {
      run: (_job, signal) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => reject(signal.reason as Error));
        }),
    },
  });
  rt.start(quiet);
  const job = newJob('wait');
  await rt.enqueue([job]);
  while (!started) await sleep(10);
  await rt.stop();
  const row = await store.jobs.get(PROJECT, job.id);
  assert.deepEqual([row?.status, row?.attempts, row?.lease_owner], ['queued', 0, null]);
});

test('the sweeper re-queues a job whose holder died, and fails it (calling its hook) when attempts run out', async (t) => {
  const store = await open(t);
  const failures: Array<[string, string]> = [];
  const rt = runtime(t, store, {
    orphan: { run: async () => {}, failed: async (job, reason) => void failures.push([job.id, reason]) },
  });
  const job = newJob('orphan');
  await store.jobs.enqueue([{ ...job, created_at: nowMicros(), max_attempts: 2 }]);
  // a node that leased it and died, twice
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const leased = await store.jobs.lease({ owner: 'dead', now: nowMicros(), leaseMicros: 1, kinds: ['orphan'] });
    assert.equal(leased?.attempts, attempt);
    await sleep(5);
    assert.deepEqual(await rt.sweepOnce(), attempt === 1 ? { requeued: 1, failed: 0 } : { requeued: 0, failed: 1 });
  }
  const row = await store.jobs.get(PROJECT, job.id);
  assert.equal(row?.status, 'failed');
  assert.match(row?.error_message ?? '', /interrupted 2 times/);
  assert.deepEqual(failures, [[job.id, row?.error_message]]);
});
