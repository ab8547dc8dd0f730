import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildTestApp } from '../helpers/app.js';
import { BuiltinTrainer } from '../../src/training/builtin-trainer.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { createModel, group, runJob } from './training-fixture.js';

/** `/v1/chat/completions` against checkpoints and the health routes (docs/spec/training.md §4.10, §4.11; item 33). */

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }], logprobs: true });

test('item 33: after a job, :stepN, latest, step 0 and the two-slash form resolve; unknown names are 404 "Model not found"', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  const model = await createModel(h, 'bot');
  const initial = await h.post('/v1/chat/completions', chat('wandb-artifact:///acme/rl/bot'));
  assert.equal(initial.statusCode, 200, initial.body);
  assert.match(initial.json().choices[0].message.content, /^checkpoint=initial jobs=0/);
  const { events } = await runJob(h, model, [group([1, 0])]);
  const checkpointId = events.at(-1)!.data.checkpoint_id;
  for (const name of [
    'wandb-artifact:///acme/rl/bot:step1',
    'wandb-artifact:///acme/rl/bot',
    'wandb-artifact://acme/rl/bot',
  ]) {
    const res = await h.post('/v1/chat/completions', chat(name));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.id, /^chatcmpl-/);
    assert.deepEqual([body.object, body.model, typeof body.created], ['chat.completion', name, 'number']);
    assert.equal(body.choices[0].message.content, `checkpoint=${checkpointId} jobs=1 messages=1`);
  }
  const step0 = await h.post('/v1/chat/completions/', chat('wandb-artifact:///acme/rl/bot:step0'));
  assert.match(
    step0.json().choices[0].message.content,
    /^checkpoint=initial/,
    'trailing-slash form, step 0 = initial policy',
  );
  for (const name of [
    'wandb-artifact:///acme/rl/bot:step7',
    'wandb-artifact:///acme/rl/nobody',
    'gpt-4o',
    'wandb-artifact:///acme/other/bot',
  ]) {
    const res = await h.post('/v1/chat/completions', chat(name));
    assert.deepEqual([res.statusCode, res.json()], [404, { detail: 'Model not found' }], name);
  }
  assert.equal((await h.post('/v1/chat/completions', chat('wandb-artifact:///acme/rl/bot'), h.bobKey)).statusCode, 403);
  assert.equal((await h.post('/v1/chat/completions', { model: 'wandb-artifact:///acme/rl/bot' })).statusCode, 422);
});

test('requests over the concurrency cap wait in line; beyond the queue limit they get 429 "Concurrency limit reached for requests"', async (t) => {
  // completions are held until the sixth request is refused, so no request can finish before the
  // line is full, however slow the machine
  let release = (): void => undefined;
  const completeGate = new Promise<void>((resolve) => (release = resolve));
  const trainer = new ScriptedTrainer({ completeGate });
  const h = await buildTestApp(
    t,
    { HEDDLE_INFERENCE_CONCURRENCY: '2', HEDDLE_INFERENCE_QUEUE_LIMIT: '3' },
    { trainer },
  );
  await createModel(h, 'bot');
  const pending = Array.from({ length: 6 }, () =>
    h.post('/v1/chat/completions', chat('wandb-artifact:///acme/rl/bot')),
  );
  // a line without a limit would refuse nothing and hold every request: fail instead of hanging
  const deadline = new AbortController();
  t.after(() => deadline.abort());
  const noRefusal = sleep(30_000, undefined, { signal: deadline.signal }).then(() =>
    assert.fail('no request was refused with every completion held'),
  );
  const first = await Promise.race([...pending, noRefusal]);
  assert.equal(first.statusCode, 429, 'with every completion held, the first answer is the refusal');
  assert.equal(trainer.activeCompletions, 2, 'the cap runs two while four wait or are refused');
  release();
  const answers = await Promise.all(pending);
  assert.deepEqual(
    answers.map((r) => r.statusCode).sort(),
    [200, 200, 200, 200, 200, 429],
    '2 served + 3 waiting, the sixth refused',
  );
  assert.equal(trainer.peakCompletions, 2, 'never more than the cap at once');
  assert.deepEqual(answers.find((r) => r.statusCode === 429)!.json(), {
    detail: 'Concurrency limit reached for requests',
  });
  // the line drained: a later request is served
  assert.equal((await h.post('/v1/chat/completions', chat('wandb-artifact:///acme/rl/bot'))).statusCode, 200);
});

test('GET /v1/health is public; /v1/system-check reports the database and answers 503 when it fails', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new ScriptedTrainer() });
  assert.deepEqual((await h.get('/v1/health', null)).json(), {
    status: 'ok',
    workers: { live: 0, base_models: [], inference_base_models: [] },
  });
  const ok = await h.get('/v1/system-check', null);
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(
    [ok.json().api, ok.json().database, ok.json().training_queue.success, ok.json().trainer.name],
    [true, true, true, 'test:scripted'],
  );
  // an outage: the store is closed (PostgreSQL: the pool is ended; SQLite: the file is gone too, so no new read connection opens)
  const close = h.store.close.bind(h.store);
  h.store.close = async () => undefined; // closed here already; the harness must not close it twice
  await close();
  for (const suffix of ['', '-wal', '-shm'])
    fs.rmSync(path.join(h.config.dataDir, `heddle.sqlite${suffix}`), { force: true });
  const down = await h.get('/v1/system-check', null);
  assert.equal(down.statusCode, 503);
  assert.deepEqual(
    [down.json().database, down.json().training_queue.success, typeof down.json().training_queue.error],
    [false, false, 'string'],
  );
});

test('the built-in trainer serves completions with logprobs from the initial policy (the default trainer of buildApp)', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new BuiltinTrainer({ backend: 'cpu' }) });
  await createModel(h, 'bot');
  const res = await h.post('/v1/chat/completions', {
    ...chat('wandb-artifact:///acme/rl/bot'),
    max_tokens: 4,
    seed: 1,
  });
  assert.equal(res.statusCode, 200, res.body);
  const choice = res.json().choices[0];
  assert.equal(choice.message.role, 'assistant');
  assert.ok(Array.isArray(choice.logprobs?.content) && choice.logprobs.content.length > 0, res.body);
  assert.match(choice.logprobs.content[0].token, /^token_id:\d+$/);
});

test('the built-in trainer behind the runner: sampled choices train into step 1, which then serves completions', async (t) => {
  const h = await buildTestApp(t, {}, { trainer: new BuiltinTrainer({ backend: 'cpu' }) });
  const model = await createModel(h, 'bot');
  const name = 'wandb-artifact:///acme/rl/bot';
  const messages = [{ role: 'user', content: 'say a' }];
  const trajectories = [];
  for (const reward of [1, 0]) {
    const res = await h.post('/v1/chat/completions', {
      model: name,
      messages,
      logprobs: true,
      max_tokens: 6,
      seed: reward,
      temperature: 1,
    });
    assert.equal(res.statusCode, 200, res.body);
    trajectories.push({ messages_and_choices: [...messages, res.json().choices[0]], reward });
  }
  const { id, events } = await runJob(h, model, [{ trajectories }], { learning_rate: 1e-3 });
  assert.equal(events.at(-1)!.type, 'training_ended', JSON.stringify(events.at(-1)));
  const steps = events.filter((e) => e.type === 'gradient_step').length;
  assert.equal(events[0]!.data.num_sequences, steps);
  assert.ok(steps >= 1);
  const job = (await h.get(`/v1/preview/training-jobs/${id}`)).json();
  assert.match(job.trainer, /^builtin:byte-decoder/);
  const served = await h.post('/v1/chat/completions', { model: `${name}:step1`, messages, max_tokens: 4 });
  assert.equal(served.statusCode, 200, served.body);
  assert.equal(typeof served.json().choices[0].message.content, 'string');
});
