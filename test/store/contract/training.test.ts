import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { TrainingStore } from '../../../src/store/training-types.js';
import { job, model } from './training-rows.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';

/**
 * The training store (docs/spec/training.md §4–§6) on every adapter: models and tombstones, checkpoints,
 * and the durable queue (per-model FIFO, one running job per model, fencing tokens, exactly one
 * terminal event, sweeper). Each test leases only its own base model, since the queue is global.
 */

let counter = 0;
const baseModel = (): string => `test/base-${process.pid}-${(counter += 1)}`;

const lease = (s: TrainingStore, base: string, now = 1000, leaseMicros = 1_000_000) =>
  s.leaseJob({ owner: 'w1', trainer: 'test', now, leaseMicros, filter: { include: [base], exclude: [] } });

const ev = (type: 'training_started' | 'gradient_step', data: Record<string, number>, seq?: number) => ({
  id: uuidv7(),
  type,
  data: JSON.stringify(data),
  created_at: 5,
  seq,
});

const success = (bytes = [1, 2, 3]) => ({
  now: 10,
  eventId: uuidv7(),
  checkpointId: uuidv7(),
  checkpoint: Uint8Array.from(bytes),
  metrics: { loss: 0.5 },
  numGradientSteps: 1,
});

forEachAdapter('training store', (store) => {
  const t = (): TrainingStore => store().training;

  test(
    'models: create returns the live model of a name; a tombstoned model keeps its id and frees its name',
    guard(async () => {
      const p = freshProject();
      const m = model(p, baseModel());
      assert.equal((await t().createModel(m)).created, true);
      const again = await t().createModel({ ...model(p, 'other'), name: 'm' });
      assert.deepEqual([again.created, again.model.id], [false, m.id]);
      assert.deepEqual(await t().resolveId(m.id), { project_id: p, kind: 'model' });
      assert.deepEqual(await t().deleteModel(p, m.id, 7, 'Model was deleted', uuidv7), { deletedCheckpoints: 0 });
      assert.equal(await t().deleteModel(p, m.id, 8, 'Model was deleted', uuidv7), null);
      assert.equal((await t().getModel(p, m.id))?.deleted_at, 7);
      const fresh = await t().createModel(model(p, 'b'));
      assert.equal(fresh.created, true);
      assert.notEqual(fresh.model.id, m.id);
    }),
  );

  test(
    'queue: a job succeeds through lease, events and completion; its checkpoint holds the bytes; step numbers are never reused',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const j1 = job(m, 100);
      await t().createJob(j1);
      const leased = await lease(t(), base);
      assert.ok(leased);
      assert.deepEqual(
        [leased.job.id, leased.job.status, leased.job.fencing_token, leased.parentStep, leased.parentCheckpointId],
        [j1.id, 'running', 1, 0, null],
      );
      assert.equal(
        (await t().appendEvent(p, j1.id, 1, ev('gradient_step', { loss: 1 }))).ok,
        false,
        'gradient_step before training_started',
      );
      assert.equal((await t().appendEvent(p, j1.id, 1, ev('training_started', { num_sequences: 1 }))).ok, true);
      assert.deepEqual(await t().appendEvent(p, j1.id, 2, ev('gradient_step', { loss: 1 })), {
        ok: false,
        reason: 'stale',
      });
      assert.equal((await t().appendEvent(p, j1.id, 1, ev('gradient_step', { loss: 1 }))).ok, true);
      assert.deepEqual(await t().completeJob(p, j1.id, 1, success([9, 8, 7])), { ok: true, value: { step: 1 } });
      const events = await t().listEvents(p, j1.id, null, 100);
      assert.deepEqual(
        events.map((e) => [e.seq, e.type]),
        [
          [1, 'training_started'],
          [2, 'gradient_step'],
          [3, 'training_ended'],
        ],
      );
      const done = await t().getJob(p, j1.id);
      assert.deepEqual(
        [done?.status, done?.step, done?.num_sequences, done?.num_gradient_steps, done?.lease_owner],
        ['succeeded', 1, 1, 1, null],
      );
      const cp = await t().getCheckpoint(p, m.id, null);
      assert.deepEqual([cp?.step, JSON.parse(cp!.metrics)], [1, { 'train/loss': 0.5 }]);
      assert.deepEqual([...(await t().checkpointData(p, m.id, cp!.id))!], [9, 8, 7]);
      // nothing after the terminal event, whoever writes
      assert.deepEqual(await t().failJob(p, j1.id, null, 'late', 11, uuidv7()), { ok: false, reason: 'finished' });
      assert.deepEqual(await t().appendEvent(p, j1.id, 1, ev('gradient_step', { loss: 1 })), {
        ok: false,
        reason: 'finished',
      });
      assert.equal((await t().listEvents(p, j1.id, null, 100)).length, 3);
      // deleting the newest checkpoint does not make its step reusable
      assert.deepEqual(await t().deleteCheckpoints(p, m.id, [1, 99]), [1]);
      const j2 = job(m, 200);
      await t().createJob(j2);
      const second = await lease(t(), base);
      assert.deepEqual([second?.job.id, second?.parentStep], [j2.id, 0]);
      assert.deepEqual(await t().completeJob(p, j2.id, second!.job.fencing_token, success()), {
        ok: true,
        value: { step: 2 },
      });
    }),
  );

  test(
    'queue: per-model FIFO with one running job per model; other models run alongside',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const a = (await t().createModel(model(p, base, 'a'))).model;
      const b = (await t().createModel(model(p, base, 'b'))).model;
      const a1 = job(a, 100);
      const a2 = job(a, 101);
      const b1 = job(b, 102);
      for (const j of [a2, a1, b1]) await t().createJob(j);
      assert.equal((await lease(t(), base))?.job.id, a1.id);
      assert.equal((await lease(t(), base))?.job.id, b1.id, 'a2 waits for a1; b1 may run');
      assert.equal(await lease(t(), base), null);
      assert.equal((await t().completeJob(p, a1.id, 1, success())).ok, true);
      const next = await lease(t(), base);
      assert.deepEqual([next?.job.id, next?.parentStep], [a2.id, 1]);
    }),
  );

  test(
    "queue: concurrent leases claim each model's head job exactly once and never two jobs of one model",
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const heads: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const m = (await t().createModel(model(p, base, `c${i}`))).model;
        for (let k = 0; k < 3; k += 1) {
          const j = job(m, 100 + k);
          await t().createJob(j);
          if (k === 0) heads.push(j.id);
        }
      }
      const leased = (await Promise.all(Array.from({ length: 16 }, () => lease(t(), base)))).filter((x) => x !== null);
      assert.deepEqual(leased.map((l) => l!.job.id).sort(), [...heads].sort());
      assert.equal(new Set(leased.map((l) => l!.job.model_id)).size, 4);
    }),
  );

  test(
    'queue: a second lease after expiry gets a higher token; the first holder is refused',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const j = job(m, 100);
      await t().createJob(j);
      const first = await lease(t(), base, 1000, 10);
      assert.equal(await t().heartbeat(p, j.id, first!.job.fencing_token, 1005, 10), true);
      assert.equal(await t().heartbeat(p, j.id, first!.job.fencing_token + 1, 1005, 10), false);
      // the sweeper fails it once the lease is over; the holder can no longer write
      const swept = await t().sweep(
        2000,
        0,
        { leaseExpired: 'lease expired', queueTimeout: 'no trainer for {base_model}' },
        uuidv7,
      );
      assert.ok(swept >= 1);
      const failed = await t().getJob(p, j.id);
      assert.deepEqual([failed?.status, failed?.error_message], ['failed', 'lease expired']);
      assert.deepEqual(await t().completeJob(p, j.id, first!.job.fencing_token, success()), {
        ok: false,
        reason: 'finished',
      });
      // a "retry" whose sequence number the terminal event holds is not mistaken for a stored duplicate
      assert.deepEqual(await t().appendEvent(p, j.id, first!.job.fencing_token, ev('gradient_step', { loss: 1 }, 1)), {
        ok: false,
        reason: 'finished',
      });
      const events = await t().listEvents(p, j.id, null, 100);
      assert.deepEqual(
        events.map((e) => [e.type, JSON.parse(e.data)]),
        [['training_failed', { error_message: 'lease expired' }]],
      );
    }),
  );

  test(
    "queue: completeJob under any token but the lease's is stale and writes nothing; the holder then completes",
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const j = job(m, 100);
      await t().createJob(j);
      const token = (await lease(t(), base))!.job.fencing_token;
      for (const stale of [token + 1, token - 1]) {
        assert.deepEqual(await t().completeJob(p, j.id, stale, success()), { ok: false, reason: 'stale' }, `${stale}`);
      }
      const running = await t().getJob(p, j.id);
      assert.deepEqual([running?.status, running?.step, running?.fencing_token], ['running', null, token]);
      assert.equal(await t().getCheckpoint(p, m.id, null), null);
      assert.equal((await t().getModel(p, m.id))?.last_step, 0);
      assert.deepEqual(await t().listEvents(p, j.id, null, 100), []);
      assert.deepEqual(await t().completeJob(p, j.id, token, success()), { ok: true, value: { step: 1 } });
    }),
  );

  test(
    'queue: sweeping twice (two nodes) fails an old queued job once; events with a sequence number are idempotent',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const old = job(m, 50);
      await t().createJob(old);
      const messages = { leaseExpired: 'x', queueTimeout: 'No trainer for {base_model}' };
      const counts = await Promise.all([t().sweep(100, 60, messages, uuidv7), t().sweep(100, 60, messages, uuidv7)]);
      assert.ok(counts.reduce((a, b) => a + b, 0) >= 1);
      const events = await t().listEvents(p, old.id, null, 100);
      assert.deepEqual(
        events.map((e) => JSON.parse(e.data).error_message),
        [`No trainer for ${base}`],
      );

      const j = job(m, 200);
      await t().createJob(j);
      const held = await lease(t(), base);
      const token = held!.job.fencing_token;
      const e1 = await t().appendEvent(p, j.id, token, ev('training_started', { num_sequences: 2 }, 1));
      const again = await t().appendEvent(p, j.id, token, ev('training_started', { num_sequences: 2 }, 1));
      assert.ok(e1.ok && again.ok);
      assert.equal(again.value.id, e1.value.id);
      assert.deepEqual(await t().appendEvent(p, j.id, token, ev('gradient_step', { loss: 1 }, 5)), {
        ok: false,
        reason: 'out_of_order',
      });
      assert.equal((await t().listEvents(p, j.id, null, 100)).length, 1);
    }),
  );

  test(
    'queue timeout: a job waiting behind a running one is not swept; a starved head fails with every job queued behind it',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const messages = { leaseExpired: 'expired', queueTimeout: 'No trainer for {base_model}' };
      const m = (await t().createModel(model(p, base))).model;
      const [first, second] = [job(m, 10), job(m, 11)];
      await t().createJob(first);
      await t().createJob(second);
      const held = await lease(t(), base, 20, 1_000_000);
      await t().sweep(100, 50, messages, uuidv7);
      assert.equal((await t().getJob(p, second.id))?.status, 'queued', 'behind a running job');
      assert.equal((await t().completeJob(p, first.id, held!.job.fencing_token, { ...success(), now: 200 })).ok, true);
      await t().sweep(300, 150, messages, uuidv7);
      assert.equal(
        (await t().getJob(p, second.id))?.status,
        'queued',
        'its wait counts from the end of the previous job (200)',
      );
      const n = await t().createModel(model(p, base, 'n'));
      const [a, b] = [job(n.model, 10), job(n.model, 11)];
      await t().createJob(a);
      await t().createJob(b);
      await t().sweep(400, 250, messages, uuidv7);
      for (const id of [second.id, a.id, b.id]) {
        const row = await t().getJob(p, id);
        assert.deepEqual([row?.status, row?.error_message], ['failed', `No trainer for ${base}`], id);
      }
    }),
  );

  test(
    'deleting a model fails its queued and running jobs with one training_failed each',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const running = job(m, 100);
      const queued = job(m, 101);
      await t().createJob(running);
      await t().createJob(queued);
      const held = await lease(t(), base);
      assert.equal(held?.job.id, running.id);
      assert.deepEqual(await t().deleteModel(p, m.id, 500, 'Model was deleted', uuidv7), { deletedCheckpoints: 0 });
      for (const j of [running, queued]) {
        const row = await t().getJob(p, j.id);
        assert.deepEqual([row?.status, row?.error_message], ['failed', 'Model was deleted']);
        const events = await t().listEvents(p, j.id, null, 100);
        assert.deepEqual(
          events.map((e) => e.type),
          ['training_failed'],
        );
      }
      assert.equal(await t().heartbeat(p, running.id, held!.job.fencing_token, 501, 10), false);
    }),
  );
  test(
    "lists: a model's jobs and /log history come back in creation order, paged by id, without other models' rows",
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const other = (await t().createModel(model(p, base, 'other'))).model;
      const jobs = [job(m, 1), job(other, 2), job(m, 3), job(m, 4)];
      for (const j of jobs) await t().createJob(j);
      const mine = [jobs[0]!.id, jobs[2]!.id, jobs[3]!.id];
      assert.deepEqual(
        (await t().listJobs(p, m.id, null, 10)).map((j) => [j.id, j.status, j.model_id]),
        mine.map((id) => [id, 'queued', m.id]),
      );
      assert.deepEqual(
        (await t().listJobs(p, m.id, mine[0]!, 1)).map((j) => j.id),
        [mine[1]],
      );
      const logs = [0, 0, 1].map((step, i) => ({
        project_id: p,
        model_id: i === 1 ? other.id : m.id,
        id: uuidv7(),
        step,
        split: i === 2 ? 'val' : 'train',
        metrics: JSON.stringify({ [`${i === 2 ? 'val' : 'train'}/reward`]: i / 4 }),
        groups: '[{"trajectories":[]}]',
        recorded_at: 10 + i,
      }));
      for (const row of logs) await t().appendLog(row);
      const read = await t().listLogHistory(p, m.id, null, 10);
      assert.deepEqual(read, [
        { ...logs[0]!, groups: '' },
        { ...logs[2]!, groups: '' },
      ]);
      assert.deepEqual(await t().listLogHistory(p, m.id, logs[0]!.id, 10), [{ ...logs[2]!, groups: '' }]);
      assert.deepEqual(await t().listLogHistory('nobody/none', m.id, null, 10), []);
    }),
  );

  test(
    'workers: the newest advertisement wins, with its inference endpoint; only workers seen since the cut-off are live',
    guard(async () => {
      const id = `w-${process.pid}-${(counter += 1)}`;
      const base = baseModel();
      const far = 9e15 + counter * 1000;
      await t().recordWorker(id, [base], far, { url: 'http://gpu:9000', token: 'secret' });
      let mine = (await t().liveWorkers(far)).filter((w) => w.worker_id === id);
      assert.deepEqual(mine, [
        { worker_id: id, base_models: [base], last_seen: far, inference: { url: 'http://gpu:9000', token: 'secret' } },
      ]);
      assert.ok((await t().liveWorkerModels(far)).includes(base));
      // a later lease without an endpoint clears it
      await t().recordWorker(id, [base, 'other'], far + 1);
      mine = (await t().liveWorkers(far)).filter((w) => w.worker_id === id);
      assert.deepEqual(mine, [{ worker_id: id, base_models: [base, 'other'], last_seen: far + 1, inference: null }]);
      assert.equal((await t().liveWorkers(far + 2)).filter((w) => w.worker_id === id).length, 0);
      // a heartbeat's touch keeps it live; it never moves last_seen back, and an unknown worker stays unknown
      await t().touchWorker(id, far + 5);
      await t().touchWorker(id, far + 3);
      await t().touchWorker(`${id}-unknown`, far + 5);
      const touched = (await t().liveWorkers(far + 2)).filter((w) => w.worker_id.startsWith(id));
      assert.deepEqual(
        touched.map((w) => [w.worker_id, w.last_seen]),
        [[id, far + 5]],
      );
    }),
  );
});
