import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { JobStore, NewBackgroundJob } from '../../../src/store/job-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * The background job queue on every adapter: lease order, fencing, lease expiry re-queues until the
 * attempts run out, and no job leased twice by concurrent runners. The queue is global, so each
 * test leases only a kind of its own.
 */

let counter = 0;
const kind = (): string => `test_kind_${process.pid}_${(counter += 1)}`;

function job(projectId: string, k: string, createdAt: number, maxAttempts = 3): NewBackgroundJob {
  return {
    project_id: projectId,
    id: uuidv7(),
    kind: k,
    input: JSON.stringify({ n: createdAt }),
    created_by: 'u',
    created_at: createdAt,
    max_attempts: maxAttempts,
  };
}

const lease = (s: JobStore, k: string, now = 1000, owner = 'w1') =>
  s.lease({ owner, now, leaseMicros: 1_000, kinds: [k] });

forEachAdapter('background job store', (store) => {
  const s = (): JobStore => store().jobs;

  test(
    'lease takes the oldest queued job of the asked kinds and bumps attempts and the fencing token',
    guard(async () => {
      const p = freshProject();
      const k = kind();
      const later = job(p, k, 200);
      const first = job(p, k, 100);
      await s().enqueue([later, first, job(p, kind(), 50)]);
      assert.equal(await s().lease({ owner: 'w', now: 1, leaseMicros: 1, kinds: [] }), null);
      const leased = await lease(s(), k);
      assert.ok(leased);
      assert.deepEqual(
        [leased.id, leased.status, leased.attempts, leased.fencing_token, leased.lease_owner, leased.lease_expires_at],
        [first.id, 'running', 1, 1, 'w1', 2000],
      );
      assert.equal(leased.input, JSON.stringify({ n: 100 }));
      assert.equal((await lease(s(), k))?.id, later.id);
      assert.equal(await lease(s(), k), null);
    }),
  );

  test(
    'fencing: heartbeat and finish need the current token; a finished job stays finished',
    guard(async () => {
      const p = freshProject();
      const k = kind();
      const j = job(p, k, 1);
      await s().enqueue([j]);
      const leased = await lease(s(), k);
      assert.ok(leased);
      assert.equal(await s().heartbeat(p, j.id, leased.fencing_token + 1, 1500, 1000), false);
      assert.equal(await s().heartbeat(p, j.id, leased.fencing_token, 1500, 1000), true);
      assert.equal((await s().get(p, j.id))?.lease_expires_at, 2500);
      assert.deepEqual(await s().finish(p, j.id, leased.fencing_token + 1, null, 1600), { ok: false, reason: 'stale' });
      assert.deepEqual(await s().finish(p, j.id, leased.fencing_token, 'boom', 1700), { ok: true });
      assert.deepEqual(await s().finish(p, j.id, leased.fencing_token, null, 1800), { ok: false, reason: 'finished' });
      assert.deepEqual(await s().finish(p, uuidv7(), 1, null, 1800), { ok: false, reason: 'not_found' });
      const row = await s().get(p, j.id);
      assert.deepEqual(
        [row?.status, row?.error_message, row?.finished_at, row?.lease_owner],
        ['failed', 'boom', 1700, null],
      );
      assert.equal(await s().heartbeat(p, j.id, leased.fencing_token, 1900, 1000), false);
    }),
  );

  test(
    'sweep: an expired lease is queued again and leased with a new token; the old holder is fenced out',
    guard(async () => {
      const p = freshProject();
      const k = kind();
      const j = job(p, k, 1);
      await s().enqueue([j]);
      const first = await lease(s(), k, 1000);
      assert.ok(first);
      const early = await s().sweep(1500, 'gave up after {attempts} attempts');
      assert.equal(early.requeued.filter((r) => r.id === j.id).length, 0, 'the lease has not expired yet');
      const swept = await s().sweep(3000, 'gave up after {attempts} attempts');
      assert.deepEqual(
        swept.requeued.filter((r) => r.id === j.id).map((r) => r.status),
        ['queued'],
      );
      assert.equal((await s().get(p, j.id))?.status, 'queued');
      const second = await lease(s(), k, 3100, 'w2');
      assert.ok(second);
      assert.deepEqual([second.attempts, second.fencing_token], [2, 2]);
      assert.equal(await s().heartbeat(p, j.id, first.fencing_token, 3200, 1000), false);
      assert.deepEqual(await s().finish(p, j.id, first.fencing_token, null, 3200), { ok: false, reason: 'stale' });
      assert.deepEqual(await s().finish(p, j.id, second.fencing_token, null, 3300), { ok: true });
      assert.equal((await s().get(p, j.id))?.status, 'succeeded');
    }),
  );

  test(
    'sweep: when the attempts are used up the job fails with the reason, never staying running',
    guard(async () => {
      const p = freshProject();
      const k = kind();
      const j = job(p, k, 1, 2);
      await s().enqueue([j]);
      let now = 10_000;
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const leased = await lease(s(), k, now);
        assert.equal(leased?.attempts, attempt);
        now += 5_000;
        const swept = await s().sweep(now, 'lease expired {attempts} times');
        const mine = [...swept.requeued, ...swept.failed].filter((r) => r.id === j.id);
        assert.deepEqual(
          mine.map((r) => r.status),
          [attempt < 2 ? 'queued' : 'failed'],
        );
      }
      const row = await s().get(p, j.id);
      assert.deepEqual([row?.status, row?.error_message, row?.attempts], ['failed', 'lease expired 2 times', 2]);
      assert.equal(await lease(s(), k, now), null);
    }),
  );

  test(
    'concurrent runners never lease the same job twice',
    guard(async () => {
      const p = freshProject();
      const k = kind();
      const jobs = Array.from({ length: 12 }, (_, i) => job(p, k, i + 1));
      await s().enqueue(jobs);
      const got: string[] = [];
      await Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          for (;;) {
            const leased = await lease(s(), k, 100, `w${w}`);
            if (leased === null) return;
            got.push(leased.id);
          }
        }),
      );
      assert.equal(got.length, jobs.length);
      assert.deepEqual([...got].sort(), jobs.map((j) => j.id).sort());
    }),
  );
});
