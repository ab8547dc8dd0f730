import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { bearer, createModel, del, group, runJob, traj } from './training-fixture.js';

/** Models, checkpoints and /log (docs/spec/training.md §4.1–§4.5; checklist items 1–4, 20–27). */

test('item 1: create with return_existing twice returns 200 and the same id; GET one and the list extension see it', async (t) => {
  const h = await buildTestApp(t);
  const body = {
    entity: null,
    project: 'ttt',
    name: 'bot',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    return_existing: true,
  };
  const a = await h.post('/v1/preview/models', body);
  const b = await h.post('/v1/preview/models', { ...body, base_model: 'other' });
  assert.equal(a.statusCode, 200, a.body);
  assert.equal(b.statusCode, 200);
  assert.equal(a.json().id, b.json().id);
  assert.deepEqual(b.json(), {
    id: a.json().id,
    entity: 'acme',
    project: 'ttt',
    name: 'bot',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    run_id: null,
    trainer: null,
  });
  const one = await h.get(`/v1/preview/models/${a.json().id}`);
  assert.deepEqual([one.json().current_step, one.json().name], [0, 'bot']);
  const list = await h.get('/v1/preview/models?limit=1');
  assert.deepEqual([list.json().object, list.json().data[0].id, list.json().has_more], ['list', a.json().id, false]);
  assert.equal((await h.get(`/v1/preview/models/${a.json().id}`, h.bobKey)).statusCode, 403);
});

test('item 2: a duplicate name without return_existing is 409; a missing project is 422 missing at ["body","project"]', async (t) => {
  const h = await buildTestApp(t);
  const body = { project: 'p', name: 'n', base_model: 'b' };
  assert.equal((await h.post('/v1/preview/models', body)).statusCode, 200);
  const dup = await h.post('/v1/preview/models', body);
  assert.deepEqual([dup.statusCode, dup.json()], [409, { detail: "Model 'n' already exists in acme/p" }]);
  const missing = await h.post('/v1/preview/models', { name: 'n', base_model: 'b', extra_key: 1 });
  assert.equal(missing.statusCode, 422);
  assert.deepEqual([missing.json().detail[0].loc, missing.json().detail[0].type], [['body', 'project'], 'missing']);
  const empty = await h.post('/v1/preview/models', { ...body, name: '' });
  assert.deepEqual([empty.statusCode, empty.json().detail[0].type], [422, 'string_too_short']);
});

test("item 3: entity is the caller's entity when null; another entity is 403", async (t) => {
  const h = await buildTestApp(t);
  const res = await h.post('/v1/preview/models', { entity: null, project: 'p', name: 'n', base_model: 'b' }, h.bobKey);
  assert.equal(res.json().entity, 'other');
  const foreign = await h.post('/v1/preview/models', { entity: 'other', project: 'p', name: 'n', base_model: 'b' });
  assert.equal(foreign.statusCode, 403);
  assert.equal(typeof foreign.json().detail, 'string');
});

test('item 4: every training endpoint except health answers 401 "Not authenticated" without credentials', async (t) => {
  const h = await buildTestApp(t);
  const id = randomUUID();
  const calls: Array<[string, string]> = [
    ['POST', '/v1/preview/models'],
    ['GET', '/v1/preview/models'],
    ['GET', `/v1/preview/models/${id}`],
    ['DELETE', `/v1/preview/models/${id}`],
    ['GET', `/v1/preview/models/${id}/checkpoints`],
    ['DELETE', `/v1/preview/models/${id}/checkpoints`],
    ['POST', `/v1/preview/models/${id}/log`],
    ['POST', '/v1/preview/training-jobs'],
    ['GET', `/v1/preview/training-jobs/${id}`],
    ['GET', `/v1/preview/training-jobs/${id}/events`],
    ['POST', '/v1/preview/sft-training-jobs'],
    ['POST', '/v1/chat/completions'],
    ['POST', '/v1/workers/lease'],
  ];
  for (const [method, url] of calls) {
    const res = await h.app.inject({ method: method as 'GET', url, payload: method === 'GET' ? undefined : {} });
    assert.deepEqual(
      [res.statusCode, res.json(), res.headers['www-authenticate']],
      [401, { detail: 'Not authenticated' }, 'Bearer'],
      `${method} ${url}`,
    );
  }
  assert.equal((await h.get('/v1/health', null)).statusCode, 200);
  const bearerOk = await h.app.inject({ method: 'GET', url: '/v1/preview/models', headers: bearer(h.aliceKey) });
  assert.equal(bearerOk.statusCode, 200);
});

test('item 20: limit=1&order=desc gives the newest checkpoint; an empty model gives data [] and has_more false', async (t) => {
  const trainer = new ScriptedTrainer();
  const h = await buildTestApp(t, {}, { trainer });
  const model = await createModel(h);
  const empty = await h.get(`/v1/preview/models/${model}/checkpoints?limit=1&order=desc`);
  assert.deepEqual(empty.json(), { object: 'list', data: [], first_id: '', last_id: '', has_more: false });
  for (let i = 0; i < 3; i += 1) await runJob(h, model, [group([1, 0])]);
  const newest = await h.get(`/v1/preview/models/${model}/checkpoints?limit=1&order=desc`);
  assert.equal(newest.json().data[0].step, 3);
  assert.equal(newest.json().has_more, true);
  assert.equal(newest.json().first_id, newest.json().data[0].id);
  const bad = await h.get(`/v1/preview/models/${model}/checkpoints?order=sideways`);
  assert.deepEqual(
    [bad.statusCode, bad.json().detail[0].loc, bad.json().detail[0].type],
    [422, ['query', 'order'], 'literal_error'],
  );
  for (const [limit, type] of [
    ['0', 'greater_than_equal'],
    ['101', 'less_than_equal'],
  ]) {
    const res = await h.get(`/v1/preview/models/${model}/checkpoints?limit=${limit}`);
    assert.deepEqual(
      [res.statusCode, res.json().detail[0].loc, res.json().detail[0].type],
      [422, ['query', 'limit'], type],
    );
  }
  assert.equal((await h.get(`/v1/preview/models/${randomUUID()}/checkpoints`)).statusCode, 404);
});

test('item 21: paging with after visits every checkpoint once in both orders; has_more false on the last page; unknown after is 422', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  for (let i = 0; i < 5; i += 1) await runJob(h, model, [group([1, 0])]);
  for (const order of ['asc', 'desc']) {
    const steps: number[] = [];
    let after = '';
    for (let page = 0; page < 10; page += 1) {
      const res = (
        await h.get(`/v1/preview/models/${model}/checkpoints?limit=2&order=${order}${after ? `&after=${after}` : ''}`)
      ).json();
      steps.push(...res.data.map((c: { step: number }) => c.step));
      if (!res.has_more) break;
      after = res.last_id;
    }
    assert.deepEqual(steps, order === 'asc' ? [1, 2, 3, 4, 5] : [5, 4, 3, 2, 1]);
  }
  const unknown = await h.get(`/v1/preview/models/${model}/checkpoints?after=${randomUUID()}`);
  assert.deepEqual([unknown.statusCode, unknown.json().detail[0].loc], [422, ['query', 'after']]);
});

test('item 22: DELETE checkpoints {steps:[1,99]} deletes 1 and reports 99; step numbers are not reused', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  await runJob(h, model, [group([1, 0])]);
  await runJob(h, model, [group([1, 0])]);
  const res = await del(h, `/v1/preview/models/${model}/checkpoints`, { steps: [1, 99, 99] });
  assert.deepEqual(res.json(), { deleted_count: 1, not_found_steps: [99] });
  const again = await del(h, `/v1/preview/models/${model}/checkpoints`, { steps: [2] });
  assert.deepEqual(again.json(), { deleted_count: 1, not_found_steps: [] });
  assert.deepEqual((await h.get(`/v1/preview/models/${model}/checkpoints`)).json().data, []);
  await runJob(h, model, [group([1, 0])]);
  const steps = (await h.get(`/v1/preview/models/${model}/checkpoints`))
    .json()
    .data.map((c: { step: number }) => c.step);
  assert.deepEqual(steps, [3]);
});

test('item 23: DELETE model answers its counts; checkpoints and log are 404 afterwards; a queued job ends with training_failed', async (t) => {
  const h = await buildTestApp(t); // no trainer: the job stays queued
  const model = await createModel(h);
  const job = (
    await h.post('/v1/preview/training-jobs', { model_id: model, trajectory_groups: [group([1, 0])] })
  ).json().id as string;
  // as the ART client sends it: Content-Type: application/json and no body at all (docs/art-client.md)
  const res = await h.app.inject({
    method: 'DELETE',
    url: `/v1/preview/models/${model}`,
    headers: { authorization: `Bearer ${h.aliceKey}`, 'content-type': 'application/json' },
  });
  assert.deepEqual(res.json(), { model_id: model, deleted_checkpoints: 0, deleted_run: false });
  assert.equal((await h.get(`/v1/preview/models/${model}/checkpoints`)).statusCode, 404);
  assert.equal(
    (await h.post(`/v1/preview/models/${model}/log`, { split: 'val', trajectory_groups: [] })).statusCode,
    404,
  );
  assert.equal((await del(h, `/v1/preview/models/${model}`)).statusCode, 404);
  const events = (await h.get(`/v1/preview/training-jobs/${job}/events`)).json().data;
  assert.deepEqual(
    events.map((e: { type: string; data: unknown }) => [e.type, e.data]),
    [['training_failed', { error_message: 'Model was deleted' }]],
  );
  assert.equal((await h.get(`/v1/preview/training-jobs/${job}`)).json().status, 'failed');
});

test('items 24–25: /log metrics — reward mean, std dev over groups, exception rate, bools as 0/1', async (t) => {
  const h = await buildTestApp(t);
  const model = await createModel(h);
  const groups = [
    {
      trajectories: [traj(1, { win: true }), traj(0, { win: false })],
      exceptions: [{ type: 'E', message: 'x', traceback: '' }],
    },
    { trajectories: [traj(1), traj(1)], metrics: { k: 2 } },
  ];
  const res = await h.post(`/v1/preview/models/${model}/log`, {
    model_id: model,
    split: 'val',
    trajectory_groups: groups,
  });
  assert.equal(res.statusCode, 200, res.body);
  const m = res.json().metrics;
  assert.equal(m['val/reward'], 0.75);
  assert.equal(m['val/reward_std_dev'], 0.25);
  assert.equal(m['val/exception_rate'], 1 / 5);
  assert.equal(m['val/win'], 0.5);
  assert.equal(m['val/group_metric_k'], 2);
  assert.deepEqual(
    [
      m['val/data/step_num_trajectories'],
      m['val/data/step_num_groups_submitted'],
      m['val/data/step_num_groups_trainable'],
    ],
    [5, 2, 1],
  );
  assert.deepEqual([res.json().split, res.json().step], ['val', 0]);
});

test("item 26: log metrics are merged into the current checkpoint's metrics", async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  await runJob(h, model, [group([1, 0])]);
  await h.post(`/v1/preview/models/${model}/log`, { split: 'val', trajectory_groups: [group([1, 0])] });
  await h.post(`/v1/preview/models/${model}/log`, { split: 'val', trajectory_groups: [group([1, 1])] });
  const [cp] = (await h.get(`/v1/preview/models/${model}/checkpoints`)).json().data;
  assert.equal(cp.step, 1);
  assert.equal(cp.metrics['val/reward'], 1, 'the later log overwrote the earlier key');
  assert.equal(cp.metrics['train/loss'], 0.4);
});

test('item 27: /log without split is 422; a never-seen UUID registers the model; a deleted model or a non-UUID unknown id is 404', async (t) => {
  const h = await buildTestApp(t);
  const id = randomUUID();
  const missing = await h.post(`/v1/preview/models/${id}/log`, { trajectory_groups: [] });
  assert.deepEqual([missing.statusCode, missing.json().detail[0].loc], [422, ['body', 'split']]);
  const fresh = await h.post(`/v1/preview/models/${id}/log`, { split: 'train', trajectory_groups: [] });
  assert.equal(fresh.statusCode, 200, fresh.body);
  assert.deepEqual(fresh.json().metrics, { 'train/reward_std_dev': 0 });
  // ART omits a reward of 0.0 and a group without trajectories is `{}` (docs/art-client.md)
  const compact = await h.post(`/v1/preview/models/${id}/log`, {
    split: 'train',
    trajectory_groups: [{ trajectories: [{}, { reward: 1 }] }, {}],
  });
  assert.equal(compact.json().metrics['train/reward'], 0.5);
  const model = (await h.get(`/v1/preview/models/${id}`)).json();
  assert.deepEqual(
    [model.entity, model.project, model.name, model.base_model],
    ['acme', 'default', id, 'heddle/byte-decoder'],
  );
  assert.equal(
    (await h.post(`/v1/preview/models/${id}/log`, { split: 'train', trajectory_groups: [] }, h.bobKey)).statusCode,
    403,
  );
  await del(h, `/v1/preview/models/${id}`);
  assert.equal(
    (await h.post(`/v1/preview/models/${id}/log`, { split: 'train', trajectory_groups: [] })).statusCode,
    404,
  );
  assert.equal(
    (await h.post('/v1/preview/models/not-a-uuid/log', { split: 'train', trajectory_groups: [] })).statusCode,
    404,
  );
});

test('§4.12 extensions: a model lists its jobs with status and its /log history per step and split', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const other = await createModel(h, 'other');
  await h.post(`/v1/preview/models/${model}/log`, { split: 'train', trajectory_groups: [group([1, 0])] });
  const job = await runJob(h, model, [group([1, 0])]);
  await runJob(h, other, [group([1, 0])]);
  await h.post(`/v1/preview/models/${model}/log`, { split: 'val', trajectory_groups: [group([1, 1])] });
  const jobs = await h.get(`/v1/preview/models/${model}/training-jobs`);
  assert.equal(jobs.statusCode, 200, jobs.body);
  assert.deepEqual(
    jobs.json().data.map((j: { id: string; status: string; step: number }) => [j.id, j.status, j.step]),
    [[job.id, 'succeeded', 1]],
  );
  const history = await h.get(`/v1/preview/models/${model}/history?limit=1`);
  assert.equal(history.statusCode, 200, history.body);
  const first = history.json();
  assert.deepEqual([first.data[0].step, first.data[0].split, first.data[0].metrics['train/reward']], [0, 'train', 0.5]);
  assert.equal(first.has_more, true);
  const rest = (await h.get(`/v1/preview/models/${model}/history?after=${first.last_id}`)).json();
  assert.deepEqual(
    [rest.data[0].step, rest.data[0].split, rest.data[0].metrics['val/reward'], rest.has_more],
    [1, 'val', 1, false],
  );
  assert.equal((await h.get(`/v1/preview/models/${model}/history?after=nope`)).statusCode, 422);
  assert.equal((await h.get(`/v1/preview/models/${model}/training-jobs?after=${randomUUID()}`)).statusCode, 422);
  assert.equal((await h.get(`/v1/preview/models/${randomUUID()}/history`)).statusCode, 404);
  assert.equal((await h.get(`/v1/preview/models/${model}/training-jobs`, h.bobKey)).statusCode, 403);
});
