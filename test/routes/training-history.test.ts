import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { createModel, group, runJob, traj } from './training-fixture.js';

/**
 * The reward history RL jobs record (src/services/training/job-history.ts, docs/art-client.md
 * "Reward history"): ART ≥ 0.5.20 never calls `/log`, so a job writes the §7 metrics of its groups at
 * the step it produced; a client that logs the same groups itself is counted once.
 */

interface HistoryRow {
  id: string;
  step: number;
  split: string;
  metrics: Record<string, number>;
}

async function history(h: TestApp, model: string): Promise<HistoryRow[]> {
  const res = await h.get(`/v1/preview/models/${model}/history?limit=100`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as HistoryRow[];
}

/** A group as ART ≥ 0.5.20 sends it: a trajectory whose reward is 0.0 has no `reward` key. */
function artGroup(rewards: number[]): Record<string, unknown> {
  return {
    trajectories: rewards.map((r) => {
      const { reward, ...rest } = traj(r, { chars: 2 });
      return r === 0 ? rest : { ...rest, reward };
    }),
  };
}

const near = (a: number | undefined, b: number): void =>
  assert.ok(a !== undefined && Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

test('without /log, every RL job records train/reward of its groups at the step it produced', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const first = [artGroup([1, 0, 0.5, 0.5]), artGroup([0.25, 0.25])];
  await runJob(h, model, first);
  await runJob(h, model, [artGroup([1, 1])]);
  const rows = await history(h, model);
  assert.deepEqual(
    rows.map((r) => [r.step, r.split]),
    [
      [1, 'train'],
      [2, 'train'],
    ],
  );
  const m = rows[0]!.metrics;
  near(m['train/reward'], (1 + 0 + 0.5 + 0.5 + 0.25 + 0.25) / 6);
  near(m['train/reward_std_dev'], (Math.sqrt(0.125) + 0) / 2);
  assert.equal(m['train/exception_rate'], 0);
  assert.equal(m['train/chars'], 2);
  assert.equal(m['train/data/step_num_groups_submitted'], 2);
  assert.equal(m['train/data/step_num_groups_trainable'], 1);
  near(rows[1]!.metrics['train/reward'], 1);
  // the jobs' own steps
  const jobs = (await h.get(`/v1/preview/models/${model}/training-jobs`)).json().data as { step: number }[];
  assert.deepEqual(
    jobs.map((j) => j.step),
    [1, 2],
  );
});

test('a client that logged the groups before training (at the parent step) keeps the only row: the job writes none', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const groups = [artGroup([1, 0]), artGroup([0.5, 0.5])];
  const logged = await h.post(`/v1/preview/models/${model}/log`, { split: 'train', trajectory_groups: groups });
  assert.equal(logged.statusCode, 200, logged.body);
  assert.equal(logged.json().step, 0);
  await runJob(h, model, groups);
  // different groups at the same parent step do not suppress the next job's row
  await h.post(`/v1/preview/models/${model}/log`, { split: 'train', trajectory_groups: [artGroup([0.75, 0.75])] });
  await runJob(h, model, [artGroup([1, 1])]);
  const rows = await history(h, model);
  assert.deepEqual(
    rows.map((r) => [r.step, r.split, r.metrics['train/reward']]),
    [
      [0, 'train', 0.5],
      [1, 'train', 0.75],
      [2, 'train', 1],
    ],
  );
});

test('a /log of the job’s groups at the job’s step replaces the job’s row; other logs stay side by side', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const groups = [artGroup([1, 0]), artGroup([0.5, 0])];
  await runJob(h, model, groups);
  const before = await history(h, model);
  assert.deepEqual(
    before.map((r) => [r.step, r.split, r.metrics['train/reward']]),
    [[1, 'train', 0.375]],
  );
  // the same groups, spelled as /log receives them (reward 0.0 omitted as ART does): one row, the client's
  const again = await h.post(`/v1/preview/models/${model}/log`, { split: 'train', trajectory_groups: groups });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().step, 1);
  const replaced = await history(h, model);
  assert.equal(replaced.length, 1);
  assert.notEqual(replaced[0]!.id, before[0]!.id);
  assert.deepEqual([replaced[0]!.step, replaced[0]!.metrics['train/reward']], [1, 0.375]);
  // val, and train of other groups, are kept beside it
  await h.post(`/v1/preview/models/${model}/log`, { split: 'val', trajectory_groups: groups });
  await h.post(`/v1/preview/models/${model}/log`, { split: 'train', trajectory_groups: [group([1, 1])] });
  assert.deepEqual(
    (await history(h, model)).map((r) => [r.step, r.split]),
    [
      [1, 'train'],
      [1, 'val'],
      [1, 'train'],
    ],
  );
});

test('a job completed by an external worker records its reward too; a failed job records nothing', async (t) => {
  const GPU = 'test/gpu-base-model';
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' });
  const model = await createModel(h, 'gpu-bot', GPU);
  const lease = async (groups: unknown[]) => {
    const created = await h.post('/v1/preview/training-jobs', { model_id: model, trajectory_groups: groups });
    assert.equal(created.statusCode, 200, created.body);
    const leased = await h.post('/v1/workers/lease', { worker_id: 'w1', base_models: [GPU] });
    assert.equal(leased.statusCode, 200, leased.body);
    return leased.json().job as { id: string; fencing_token: number };
  };
  const failing = await lease([artGroup([1, 0])]);
  const failed = await h.post(`/v1/workers/jobs/${failing.id}/fail`, {
    fencing_token: failing.fencing_token,
    error_message: 'out of memory',
  });
  assert.equal(failed.statusCode, 200, failed.body);
  assert.deepEqual(await history(h, model), []);
  const job = await lease([artGroup([0.2, 0.4])]);
  const done = await h.post(`/v1/workers/jobs/${job.id}/complete`, {
    fencing_token: job.fencing_token,
    checkpoint_base64: Buffer.from([1, 2]).toString('base64'),
    metrics: { loss: 0.1 },
    num_gradient_steps: 0,
  });
  assert.equal(done.statusCode, 200, done.body);
  const rows = await history(h, model);
  assert.deepEqual(
    rows.map((r) => [r.step, r.split]),
    [[done.json().step as number, 'train']],
  );
  near(rows[0]!.metrics['train/reward'], 0.3);
});
