import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildTestApp } from '../helpers/app.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { createModel, del, group, pollEvents, runJob, traj } from './training-fixture.js';

/** RL/SFT jobs, events and the built-in runner (docs/spec/training.md §4.6–§4.9, §6; checklist items 5–19, 34–35). */

const terminal = (type: string): boolean => type === 'training_ended' || type === 'training_failed';

test("item 5: non-UUID model_id is 422 uuid_parsing; a never-seen UUID registers the model; a deleted model is 404; another entity's is 403", async (t) => {
  const h = await buildTestApp(t);
  const bad = await h.post('/v1/preview/training-jobs', { model_id: 'nope', trajectory_groups: [] });
  assert.deepEqual(
    [bad.statusCode, bad.json().detail[0].loc, bad.json().detail[0].type],
    [422, ['body', 'model_id'], 'uuid_parsing'],
  );
  const id = randomUUID();
  const fresh = await h.post('/v1/preview/training-jobs', { model_id: id, trajectory_groups: [] });
  assert.equal(fresh.statusCode, 200, fresh.body);
  assert.equal((await h.get(`/v1/preview/models/${id}`)).json().name, id);
  assert.equal(
    (await h.post('/v1/preview/training-jobs', { model_id: id, trajectory_groups: [] }, h.bobKey)).statusCode,
    403,
  );
  assert.equal((await h.get(`/v1/preview/training-jobs/${fresh.json().id}`, h.bobKey)).statusCode, 403);
  assert.equal((await h.get(`/v1/preview/models/${id}/checkpoints`, h.bobKey)).statusCode, 403);
  assert.equal((await del(h, `/v1/preview/models/${id}`, undefined, h.bobKey)).statusCode, 403);
  await del(h, `/v1/preview/models/${id}`);
  const gone = await h.post('/v1/preview/training-jobs', { model_id: id, trajectory_groups: [] });
  assert.deepEqual([gone.statusCode, gone.json()], [404, { detail: 'Model not found' }]);
});

test('item 6: missing trajectory_groups and a bad reward are 422 with exact string locs (deviation: a missing reward means 0.0, as ART sends it)', async (t) => {
  const h = await buildTestApp(t);
  const id = randomUUID();
  const missing = await h.post('/v1/preview/training-jobs', { model_id: id });
  assert.deepEqual(
    [missing.statusCode, missing.json().detail[0].loc, missing.json().detail[0].type],
    [422, ['body', 'trajectory_groups'], 'missing'],
  );
  const res = await h.post('/v1/preview/training-jobs', {
    model_id: id,
    trajectory_groups: [{ trajectories: [traj(1), traj(0), { ...traj(1), reward: 'high' }] }],
  });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().detail[0].type, 'float_type');
  assert.deepEqual(
    res.json().detail.map((d: { loc: string[] }) => d.loc),
    [['body', 'trajectory_groups', '0', 'trajectories', '2', 'reward']],
  );
  assert.ok(res.json().detail.every((d: { loc: unknown[] }) => d.loc.every((x) => typeof x === 'string')));
  // An item with `message` is a Choice, else a Message (§5.4–5.5): each failure names its field, once.
  const items = [{ role: 'user', content: 'x' }, { index: 0, message: { role: 'assistant' } }, { role: 'wizard' }];
  const mixed = await h.post('/v1/preview/training-jobs', {
    model_id: id,
    trajectory_groups: [{ trajectories: [{ reward: 1, messages_and_choices: items }] }],
  });
  const at = ['body', 'trajectory_groups', '0', 'trajectories', '0', 'messages_and_choices'];
  assert.deepEqual(
    mixed.json().detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type]),
    [
      [[...at, '1', 'finish_reason'], 'missing'],
      [[...at, '2', 'role'], 'literal_error'],
    ],
  );
});

test('item 7: unknown keys in the body, groups, trajectories and experimental_config are accepted', async (t) => {
  const h = await buildTestApp(t);
  const g: Record<string, unknown> = {
    ...group([1, 0]),
    exceptions: [{ type: 'E', message: 'm', traceback: 't' }],
    metadata: { a: 1, b: 'x', c: null },
    metrics: { m: true },
    logs: ['l'],
    novel: { deep: 1 },
  };
  (g.trajectories as Array<Record<string, unknown>>)[0]!.surprise = [1, 2];
  const res = await h.post('/v1/preview/training-jobs', {
    model_id: randomUUID(),
    trajectory_groups: [g],
    experimental_config: { learning_rate: 1e-5, future_knob: 'x' },
    top_level_extra: 1,
  });
  assert.equal(res.statusCode, 200, res.body);
});

test('item 8: importance_sampling_level "bogus" and ppo "yes" are 422; partner_k2_tau is type-checked like kimi_k2_tau', async (t) => {
  const h = await buildTestApp(t);
  const send = (config: unknown) =>
    h.post('/v1/preview/training-jobs', { model_id: randomUUID(), trajectory_groups: [], experimental_config: config });
  const level = await send({ importance_sampling_level: 'bogus' });
  assert.deepEqual(
    [level.statusCode, level.json().detail[0].loc, level.json().detail[0].type],
    [422, ['body', 'experimental_config', 'importance_sampling_level'], 'literal_error'],
  );
  const ppo = await send({ ppo: 'yes' });
  assert.deepEqual(
    [ppo.statusCode, ppo.json().detail[0].loc, ppo.json().detail[0].type],
    [422, ['body', 'experimental_config', 'ppo'], 'bool_type'],
  );
  const tau = await send({ partner_k2_tau: 'x' });
  assert.deepEqual([tau.statusCode, tau.json().detail[0].type], [422, 'float_type']);
  assert.equal((await send({ importance_sampling_level: 'sequence', ppo: null, partner_k2_tau: 0.1 })).statusCode, 200);
});

test('items 9–10: creation returns {id} at once before any event; GET job returns that id, the effective config and the trainer; unknown id is 404', async (t) => {
  const h = await buildTestApp(t); // no trainer: the job stays queued
  const model = await createModel(h);
  const res = await h.post('/v1/preview/training-jobs', {
    model_id: model,
    trajectory_groups: [group([1, 0])],
    experimental_config: { ppo: true },
  });
  assert.deepEqual(Object.keys(res.json()), ['id']);
  assert.deepEqual((await h.get(`/v1/preview/training-jobs/${res.json().id}/events`)).json().data, []);
  const job = (await h.get(`/v1/preview/training-jobs/${res.json().id}`)).json();
  assert.deepEqual(
    [job.id, job.model_id, job.kind, job.status, job.trainer, job.step],
    [res.json().id, model, 'rl', 'queued', null, null],
  );
  assert.deepEqual(job.experimental_config.ratio_clip_window, [0.8, 1.2]);
  assert.equal((await h.get(`/v1/preview/training-jobs/${randomUUID()}`)).statusCode, 404);
  assert.equal((await h.get('/v1/preview/training-jobs/not-a-uuid')).statusCode, 404);
});

test('items 11–14, 17, 35: ascending events, exclusive after, one terminal event last, num_sequences = gradient steps, numeric data, immutable stream', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const { id, events } = await runJob(h, model, [group([1, 0]), group([0, 1, 1]), group([2, 2])]);
  assert.deepEqual(
    events.map((e) => e.type),
    ['training_started', 'gradient_step', 'gradient_step', 'training_ended'],
  );
  assert.equal(events[0]!.data.num_sequences, 2);
  assert.equal(events[0]!.data.parent_step, 0);
  for (const e of events.filter((x) => x.type === 'gradient_step'))
    assert.ok(Object.values(e.data).every((v) => typeof v === 'number'));
  assert.equal(events.filter((e) => terminal(e.type)).length, 1);
  const ended = events.at(-1)!;
  assert.equal(ended.data.step, 1, 'item 17: the first job yields step 1');
  const after = (await h.get(`/v1/preview/training-jobs/${id}/events?after=${events[1]!.id}`)).json();
  assert.deepEqual(
    after.data.map((e: { id: string }) => e.id),
    events.slice(2).map((e) => e.id),
  );
  for (const limit of ['0', '101'])
    assert.equal((await h.get(`/v1/preview/training-jobs/${id}/events?limit=${limit}`)).statusCode, 422);
  assert.equal((await h.get(`/v1/preview/training-jobs/${id}/events?after=${randomUUID()}`)).statusCode, 422);
  const first = (await h.get(`/v1/preview/training-jobs/${id}/events?limit=100`)).body;
  await sleep(50);
  assert.equal(
    (await h.get(`/v1/preview/training-jobs/${id}/events?limit=100`)).body,
    first,
    'item 35: identical across reads',
  );
  const job = (await h.get(`/v1/preview/training-jobs/${id}`)).json();
  assert.deepEqual(
    [job.status, job.step, job.num_sequences, job.num_gradient_steps, job.trainer],
    ['succeeded', 1, 2, 2, 'test:scripted'],
  );
  assert.equal((await h.get(`/v1/preview/models/${model}`)).json().trainer, 'test:scripted');
});

test("item 16: two jobs of one model run in order; the second trains from the first one's step", async (t) => {
  const trainer = new ScriptedTrainer({ stepDelayMs: 30 });
  const h = await buildTestApp(t, {}, { trainer });
  const model = await createModel(h);
  const a = (await h.post('/v1/preview/training-jobs', { model_id: model, trajectory_groups: [group([1, 0])] })).json()
    .id;
  const b = (await h.post('/v1/preview/training-jobs', { model_id: model, trajectory_groups: [group([1, 0])] })).json()
    .id;
  const ea = await pollEvents(h, a);
  const eb = await pollEvents(h, b);
  assert.equal(ea.at(-1)!.data.step, 1);
  assert.equal(eb[0]!.data.parent_step, 1);
  assert.equal(eb.at(-1)!.data.step, 2);
  assert.deepEqual(
    trainer.jobs.map((j) => [j.jobId, j.parentStep]),
    [
      [a, 0],
      [b, 1],
    ],
  );
  assert.ok(trainer.jobs[1]!.parentCheckpoint, "the second job received the first checkpoint's bytes");
});

test('items 18–19: equal rewards and an empty list succeed with num_sequences 0 and still advance the step', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const equal = await runJob(h, model, [group([0.7, 0.7, 0.7])]);
  assert.deepEqual(
    equal.events.map((e) => [e.type, e.data.num_sequences ?? e.data.step]),
    [
      ['training_started', 0],
      ['training_ended', 1],
    ],
  );
  const empty = await runJob(h, model, []);
  assert.deepEqual(
    empty.events.map((e) => e.type),
    ['training_started', 'training_ended'],
  );
  assert.equal(empty.events.at(-1)!.data.step, 2);
});

test('item 15: content errors and crashes end with training_failed and a non-empty message; nothing after it', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h);
  const content = await runJob(h, model, [group([1, 0], { metadata: { scripted: 'content_error' } })]);
  assert.deepEqual(
    content.events.map((e) => [e.type, e.data.error_message]),
    [['training_failed', 'no trainable tokens']],
  );
  const crash = await runJob(h, model, [group([1, 0], { metadata: { scripted: 'crash' } })]);
  assert.equal(crash.events.at(-1)!.data.error_message, 'Training failed: boom');
  const job = (await h.get(`/v1/preview/training-jobs/${crash.id}`)).json();
  assert.deepEqual([job.status, job.error_message], ['failed', 'Training failed: boom']);
  assert.deepEqual(
    (await h.get(`/v1/preview/models/${model}/checkpoints`)).json().data,
    [],
    'a failed job creates no checkpoint',
  );
});

test('item 34: with no trainer for the base model the job fails after the queue timeout; a running job whose model is deleted is aborted', async (t) => {
  const trainer = new ScriptedTrainer();
  const h = await buildTestApp(
    t,
    {
      HEDDLE_TRAINING_QUEUE_TIMEOUT_SECONDS: '0.3',
      HEDDLE_TRAINING_SWEEP_SECONDS: '0.05',
      HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false',
    },
    { trainer },
  );
  const gpu = await createModel(h, 'big', 'meta-llama/Llama-3.1-8B-Instruct');
  const { events } = await runJob(h, gpu, [group([1, 0])]);
  assert.equal(events.length, 1);
  assert.match(
    String(events[0]!.data.error_message),
    /No trainer took the job within 0.3 s: no live worker serves base model meta-llama\/Llama-3.1-8B-Instruct \(the built-in trainer fallback is disabled\)/,
  );
  const own = await createModel(h, 'small');
  const hung = (
    await h.post('/v1/preview/training-jobs', {
      model_id: own,
      trajectory_groups: [group([1, 0], { metadata: { scripted: 'hang' } })],
    })
  ).json().id;
  for (let i = 0; i < 100 && (await h.get(`/v1/preview/training-jobs/${hung}`)).json().status !== 'running'; i += 1)
    await sleep(20);
  await del(h, `/v1/preview/models/${own}`);
  const after = await pollEvents(h, hung);
  assert.deepEqual(
    after.map((e) => [e.type, e.data.error_message]),
    [['training_failed', 'Model was deleted']],
  );
});

test('the built-in fallback (default on) trains other base models; SFT jobs read data: URLs and fail on others', async (t) => {
  const trainer = new ScriptedTrainer();
  const h = await buildTestApp(t, {}, { trainer });
  const model = await createModel(h, 'gpu', 'OpenPipe/Qwen3-14B-Instruct');
  const rl = await runJob(h, model, [group([1, 0])]);
  assert.equal(rl.events.at(-1)!.type, 'training_ended');
  const lines = [
    {
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    },
    { messages: [{ role: 'user', content: 'c' }] },
  ];
  const url = `data:application/jsonl;base64,${Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')).toString('base64')}`;
  const sft = (
    await h.post('/v1/preview/sft-training-jobs', {
      model_id: model,
      training_folder_url: url,
      config: { batch_size: 'auto', learning_rate: [1e-4, 2e-4] },
    })
  ).json().id;
  const sftEvents = await pollEvents(h, sft);
  assert.deepEqual(
    sftEvents.map((e) => e.type),
    ['training_started', 'gradient_step', 'gradient_step', 'training_ended'],
  );
  assert.equal(trainer.jobs.at(-1)!.sftExamples?.length, 2);
  assert.equal((await h.get(`/v1/preview/training-jobs/${sft}`)).json().kind, 'sft');
  const bad = (
    await h.post('/v1/preview/sft-training-jobs', {
      model_id: model,
      training_data_url: 'wandb-artifact:///acme/rl/data:v0',
    })
  ).json().id;
  const failed = await pollEvents(h, bad);
  assert.match(String(failed[0]!.data.error_message), /Cannot resolve training data URL/);
  const missing = await h.post('/v1/preview/sft-training-jobs', { model_id: model });
  assert.deepEqual([missing.statusCode, missing.json().detail[0].loc], [422, ['body', 'training_data_url']]);
});

test('a body over the limit is 413 {"detail"} naming the limit', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_BODY_LIMIT_BYTES: '4096' });
  const res = await h.post('/v1/preview/training-jobs', {
    model_id: randomUUID(),
    trajectory_groups: [group([1, 0], { logs: ['x'.repeat(5000)] })],
  });
  assert.equal(res.statusCode, 413);
  assert.match(res.json().detail, /4096/);
});

test('closing the app fails the running job with a shutdown message and closes the trainer', async (t) => {
  const trainer = new ScriptedTrainer();
  const h = await buildTestApp(t, {}, { trainer });
  const model = await createModel(h);
  const id = (
    await h.post('/v1/preview/training-jobs', {
      model_id: model,
      trajectory_groups: [group([1, 0], { metadata: { scripted: 'hang' } })],
    })
  ).json().id;
  for (let i = 0; i < 100 && (await h.get(`/v1/preview/training-jobs/${id}`)).json().status !== 'running'; i += 1)
    await sleep(20);
  const job = await h.store.training.resolveId(id);
  await h.app.close();
  const row = await h.store.training.getJob(job!.project_id, id);
  assert.equal(row?.status, 'failed');
  assert.match(String(row?.error_message), /shut down/);
  assert.equal(trainer.closed, true);
});

test('ART compact dumps (docs/art-client.md): omitted lists mean empty; exchanges become histories the trainer receives', async (t) => {
  const trainer = new ScriptedTrainer();
  const h = await buildTestApp(t, {}, { trainer });
  const model = await createModel(h);
  const choice = (content: string) => ({
    index: 0,
    finish_reason: 'stop',
    message: { role: 'assistant', content },
    logprobs: { content: [] },
    token_ids: [1],
  });
  const exchange = (content: string) => ({
    request: {
      messages: [{ role: 'user', content: `q-${content}` }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    },
    response: { choices: [choice(content)], prompt_token_ids: [7, 8] },
  });
  // ART ≥ 0.5.20 omits a reward of 0.0: the second trajectory has none
  const groups = [
    {},
    { trajectories: [{ reward: 1 }, { exchanges: { chat_completions: [exchange('a'), exchange('b')] } }] },
  ];
  const { events } = await runJob(h, model, groups);
  assert.equal(events.at(-1)!.type, 'training_ended');
  const [empty, second] = trainer.jobs[0]!.trajectoryGroups as Array<{ trajectories: Array<Record<string, any>> }>;
  assert.ok(empty !== undefined);
  assert.ok(second !== undefined);
  assert.deepEqual(empty.trajectories, []);
  assert.deepEqual(second.trajectories[0]!.messages_and_choices, []);
  const captured = second.trajectories[1]!;
  assert.equal(captured.reward, 0);
  assert.deepEqual(captured.messages_and_choices, [
    { role: 'user', content: 'q-a' },
    { ...choice('a'), prompt_token_ids: [7, 8] },
  ]);
  assert.equal(captured.tools[0].function.name, 'f');
  assert.deepEqual(captured.additional_histories[0].messages_and_choices[1].message.content, 'b');
});

test('HEDDLE_TRAINING_BUILTIN_CONCURRENCY=2 runs jobs of two models side by side, never two of one model', async (t) => {
  const trainer = new ScriptedTrainer({ stepDelayMs: 400 });
  const h = await buildTestApp(t, { HEDDLE_TRAINING_BUILTIN_CONCURRENCY: '2' }, { trainer });
  const [a, b] = [await createModel(h, 'a'), await createModel(h, 'b')];
  const ids = [];
  for (const m of [a, a, b])
    ids.push(
      (
        await h.post('/v1/preview/training-jobs', { model_id: m, trajectory_groups: [group([1, 0]), group([0, 1])] })
      ).json().id,
    );
  let sawBoth = false;
  for (let i = 0; i < 500; i += 1) {
    const statuses = await Promise.all(
      ids.map(async (id) => (await h.get(`/v1/preview/training-jobs/${id}`)).json().status as string),
    );
    assert.ok(!(statuses[0] === 'running' && statuses[1] === 'running'), 'two jobs of one model ran at once');
    if (statuses[0] === 'running' && statuses[2] === 'running') sawBoth = true;
    if (statuses.every((s) => s === 'succeeded')) break;
    await sleep(20);
  }
  assert.ok(sawBoth, 'the jobs of models a and b never ran at the same time');
  for (const id of ids) assert.equal((await pollEvents(h, id)).at(-1)!.type, 'training_ended');
});
