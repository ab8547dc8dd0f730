import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { NewBackgroundJob } from '../../../src/store/job-types.js';
import type { MonitorStore } from '../../../src/store/monitor-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * Online monitors' store on every adapter (docs/monitors.md): the cursor a publication starts or
 * keeps, one open scan job per monitor, the at-most-once (monitor, call) key and a cursor that never
 * moves back.
 */

const scanJob = (projectId: string, createdAt = 1): NewBackgroundJob => ({
  project_id: projectId,
  id: uuidv7(),
  kind: `monitor_scan_test_${process.pid}`,
  input: '{"monitor_id":"m"}',
  created_by: 'u',
  created_at: createdAt,
  max_attempts: 3,
});

const follow = (s: MonitorStore, projectId: string, active: boolean, seq: number, now = 1) =>
  s.follow({ projectId, monitorId: 'm', active, caller: '{"userId":"u"}', head: { seq, id: `c${seq}` }, now });

forEachAdapter('monitor store', (store) => {
  const s = (): MonitorStore => store().monitors;

  test(
    'follow: a first or re-activated monitor starts at the head; a republished active one keeps its cursor',
    guard(async () => {
      const p = freshProject();
      assert.equal(await s().get(p, 'm'), null);
      await follow(s(), p, true, 10);
      assert.deepEqual(await s().get(p, 'm'), {
        project_id: p,
        monitor_id: 'm',
        active: true,
        caller: '{"userId":"u"}',
        cursor: { seq: 10, id: 'c10' },
        scan_job_id: null,
        updated_at: 1,
      });
      await follow(s(), p, true, 20, 2);
      assert.deepEqual((await s().get(p, 'm'))?.cursor, { seq: 10, id: 'c10' }, 'still active: cursor kept');
      await follow(s(), p, false, 30, 3);
      const off = await s().get(p, 'm');
      assert.deepEqual([off?.active, off?.cursor.seq], [false, 10]);
      assert.equal((await s().listActive(1000)).filter((r) => r.project_id === p).length, 0);
      await follow(s(), p, true, 40, 4);
      const on = await s().get(p, 'm');
      assert.deepEqual([on?.active, on?.cursor], [true, { seq: 40, id: 'c40' }], 'reactivated: from the head');
      assert.deepEqual(
        (await s().listActive(1000)).filter((r) => r.project_id === p).map((r) => r.monitor_id),
        ['m'],
      );
    }),
  );

  test(
    'claimScan: one open scan job per monitor; a finished one lets the next in; none for inactive monitors',
    guard(async () => {
      const p = freshProject();
      assert.equal(await s().claimScan(p, 'm', scanJob(p)), false, 'unknown monitor');
      await follow(s(), p, true, 1);
      const first = scanJob(p);
      const results = await Promise.all([
        s().claimScan(p, 'm', first),
        s().claimScan(p, 'm', scanJob(p)),
        s().claimScan(p, 'm', scanJob(p)),
      ]);
      assert.equal(results.filter(Boolean).length, 1, 'concurrent claims: one wins');
      const state = await s().get(p, 'm');
      assert.ok(state?.scan_job_id);
      const job = await store().jobs.get(p, state.scan_job_id);
      assert.equal(job?.status, 'queued');
      assert.equal(job?.kind, first.kind);
      const leased = await store().jobs.lease({ owner: 'w', now: 10, leaseMicros: 1000, kinds: [first.kind] });
      assert.equal(leased?.id, state.scan_job_id);
      assert.equal(await s().claimScan(p, 'm', scanJob(p)), false, 'running blocks');
      assert.deepEqual(await store().jobs.finish(p, leased.id, leased.fencing_token, null, 20), { ok: true });
      const next = scanJob(p);
      assert.equal(await s().claimScan(p, 'm', next), true, 'finished: the next scan may be queued');
      assert.equal((await s().get(p, 'm'))?.scan_job_id, next.id);
      assert.equal(await store().jobs.get(p, leased.id), null, 'the succeeded scan job row is gone');
      // a failed scan holds the next one back for the retry time
      const failing = await store().jobs.lease({ owner: 'w', now: 30, leaseMicros: 1000, kinds: [next.kind] });
      assert.equal(failing?.id, next.id);
      await store().jobs.finish(p, next.id, failing.fencing_token, 'boom', 40);
      assert.equal(await s().claimScan(p, 'm', scanJob(p, 50), 100), false, 'failed 10 µs ago');
      assert.equal((await store().jobs.get(p, next.id))?.status, 'failed', 'a failed scan row is kept');
      assert.equal(await s().claimScan(p, 'm', scanJob(p, 200), 100), true, 'retry time passed');
      await follow(s(), p, false, 1);
      assert.equal(await s().claimScan(p, 'm', scanJob(p)), false, 'inactive');
    }),
  );

  test(
    'record: each (monitor, call) pair once, the cursor only forward; pending until scored',
    guard(async () => {
      const p = freshProject();
      await follow(s(), p, true, 5);
      await s().record(p, 'm', { seq: 7, id: 'b' }, ['b', 'a'], 100);
      assert.deepEqual((await s().get(p, 'm'))?.cursor, { seq: 7, id: 'b' });
      assert.deepEqual(await s().pending(p, 'm', 10), ['a', 'b']);
      await s().markScored(p, 'm', ['a'], 200);
      // a replayed batch (a rename wrote the call again, or a re-run job) adds nothing and moves nothing back
      await s().record(p, 'm', { seq: 6, id: 'z' }, ['a', 'b', 'c'], 300);
      assert.deepEqual((await s().get(p, 'm'))?.cursor, { seq: 7, id: 'b' });
      assert.deepEqual(await s().pairs(p, 'm'), [
        { call_id: 'a', status: 'scored' },
        { call_id: 'b', status: 'pending' },
        { call_id: 'c', status: 'pending' },
      ]);
      assert.deepEqual(await s().pending(p, 'm', 1), ['b']);
      await s().record(p, 'm', { seq: 7, id: 'c' }, [], 400);
      assert.deepEqual((await s().get(p, 'm'))?.cursor, { seq: 7, id: 'c' }, 'same seq, later id: forward');
      await s().markScored(p, 'm', ['b', 'c'], 500);
      assert.deepEqual(await s().pending(p, 'm', 10), []);
      assert.deepEqual(await s().pairs(p, 'other'), [], 'pairs are per monitor');
    }),
  );
});
