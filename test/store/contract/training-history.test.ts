import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../../src/domain/ids.js';
import type { TrainingStore } from '../../../src/store/training-types.js';
import { forEachAdapter, freshProject, guard } from './adapters.js';
import { job, model } from './training-rows.js';

/**
 * The history rows a job writes on success (JobSuccess.history, src/services/training/job-history.ts)
 * and the `/log` replacement of one, on every adapter.
 */

let counter = 0;
const baseModel = (): string => `test/history-${process.pid}-${(counter += 1)}`;

forEachAdapter('training store: history written by jobs', (store) => {
  const t = (): TrainingStore => store().training;

  test(
    'completeJob writes its history row at the new step in the same transaction; a stale completion writes none',
    guard(async () => {
      const p = freshProject();
      const base = baseModel();
      const m = (await t().createModel(model(p, base))).model;
      const j = job(m, 100);
      await t().createJob(j);
      const leased = await t().leaseJob({
        owner: 'w1',
        trainer: 'test',
        now: 1000,
        leaseMicros: 1_000_000,
        filter: { include: [base], exclude: [] },
      });
      assert.ok(leased);
      const token = leased.job.fencing_token;
      const history = {
        id: uuidv7(),
        split: 'train',
        metrics: JSON.stringify({ 'train/reward': 0.25 }),
        groups: JSON.stringify({ training_job_id: j.id }),
      };
      const success = {
        now: 2000,
        eventId: uuidv7(),
        checkpointId: uuidv7(),
        checkpoint: Uint8Array.from([1]),
        metrics: { loss: 0.5 },
        numGradientSteps: 1,
      };
      assert.deepEqual(await t().completeJob(p, j.id, token + 1, { ...success, history }), {
        ok: false,
        reason: 'stale',
      });
      assert.deepEqual(await t().listLogHistory(p, m.id, null, 10), []);
      assert.deepEqual(await t().completeJob(p, j.id, token, { ...success, history }), {
        ok: true,
        value: { step: 1 },
      });
      const row = {
        project_id: p,
        model_id: m.id,
        id: history.id,
        step: 1,
        split: 'train',
        metrics: history.metrics,
        groups: history.groups,
        recorded_at: 2000,
      };
      assert.deepEqual(await t().listLogHistory(p, m.id, null, 10), [{ ...row, groups: '' }]);
      assert.deepEqual(await t().logRowsAt(p, m.id, 'train', 1), [row]);
      assert.deepEqual(await t().logRowsAt(p, m.id, 'val', 1), []);
      assert.deepEqual(await t().logRowsAt(p, m.id, 'train', 0), []);
      // the checkpoint's own metrics stay the trainer's
      assert.equal((await t().getCheckpoint(p, m.id, 1))?.metrics, JSON.stringify({ 'train/loss': 0.5 }));
    }),
  );

  test(
    'appendLog with replaceId swaps that row for the new one; an unknown replaceId only appends',
    guard(async () => {
      const p = freshProject();
      const m = (await t().createModel(model(p, baseModel()))).model;
      const row = (split: string, step: number, reward: number) => ({
        project_id: p,
        model_id: m.id,
        id: uuidv7(),
        step,
        split,
        metrics: JSON.stringify({ [`${split}/reward`]: reward }),
        groups: '[]',
        recorded_at: 10,
      });
      const a = row('train', 2, 0.1);
      const b = row('val', 2, 0.2);
      await t().appendLog(a);
      await t().appendLog(b);
      const c = row('train', 2, 0.3);
      await t().appendLog(c, a.id);
      assert.deepEqual(
        (await t().listLogHistory(p, m.id, null, 10)).map((r) => r.id),
        [b.id, c.id],
      );
      const d = row('train', 3, 0.4);
      await t().appendLog(d, uuidv7());
      assert.deepEqual(
        (await t().logRowsAt(p, m.id, 'train', 2)).map((r) => [r.id, r.groups]),
        [[c.id, '[]']],
      );
      assert.equal((await t().listLogHistory(p, m.id, null, 10)).length, 3);
    }),
  );
});
