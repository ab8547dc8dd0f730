import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { BuiltinTrainer } from '../../../src/training/builtin-trainer.js';
import { encodeCheckpoint, initialPolicyState } from '../../../src/training/policy/checkpoint.js';
import {
  type TrainingJobInput,
  type TrainingProgress,
  TrainingContentError,
} from '../../../src/training/trainer-port.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let trainer: BuiltinTrainer;
before(async () => {
  trainer = await BuiltinTrainer.create();
});
after(() => trainer.close());

type Body = {
  choices: {
    message: { content: string };
    finish_reason: string;
    logprobs: { content: { token: string; logprob: number; bytes: number[]; top_logprobs: unknown[] }[] } | null;
    token_ids?: number[];
  }[];
  usage: Record<string, number>;
  prompt_token_ids?: number[];
};
const INITIAL = { id: null, load: async () => null };
const PROMPT = [{ role: 'user', content: 'Say a letter.' }];

const complete = async (
  request: Record<string, unknown>,
  handle: { id: string | null; load: () => Promise<Uint8Array | null> } = INITIAL,
) => (await trainer.complete(handle, { messages: PROMPT, ...request })) as unknown as Body;

function job(overrides: Partial<TrainingJobInput>): TrainingJobInput {
  return {
    jobId: 'job',
    kind: 'rl',
    baseModel: 'builtin',
    parentStep: 0,
    parentCheckpoint: null,
    trajectoryGroups: [],
    experimentalConfig: null,
    seed: 1,
    ...overrides,
  };
}

async function run(input: TrainingJobInput, signal = new AbortController().signal) {
  const events: TrainingProgress[] = [];
  const outcome = await trainer.train(
    input,
    async (p) => {
      events.push(p);
    },
    signal,
  );
  return { events, outcome };
}

test('name and backend', () => {
  assert.equal(trainer.name, 'builtin:byte-decoder');
  assert.equal(trainer.backendName, 'wasm');
});

test('complete: n, max_tokens → length, logprobs with token_id tokens and top_logprobs, usage, token ids', async () => {
  const body = await complete({
    n: 3,
    max_tokens: 5,
    logprobs: true,
    top_logprobs: 2,
    seed: 7,
    return_token_ids: true,
  });
  assert.equal(body.choices.length, 3);
  for (const c of body.choices) {
    const tokens = c.logprobs!.content;
    if (c.finish_reason === 'length') assert.equal(tokens.length, 5);
    else assert.equal(tokens[tokens.length - 1]!.token, 'token_id:261'); // sampled end of turn → stop
    for (const e of c.logprobs!.content) {
      assert.match(e.token, /^token_id:\d+$/);
      assert.ok(e.logprob < 0, `logprob ${e.logprob}`);
      assert.equal(e.top_logprobs.length, 2);
    }
    assert.deepEqual(
      c.token_ids,
      c.logprobs!.content.map((e) => Number(e.token.slice(9))),
    );
  }
  const completion = body.choices.reduce((n, c) => n + c.token_ids!.length, 0);
  assert.deepEqual(body.usage, {
    prompt_tokens: body.prompt_token_ids!.length,
    completion_tokens: completion,
    total_tokens: body.prompt_token_ids!.length + completion,
  });
  assert.equal(body.prompt_token_ids![0], 256);
});

test('complete: seeded sampling is deterministic, other seeds differ; no logprobs unless asked', async () => {
  const a = await complete({ n: 2, max_tokens: 8, seed: 11 });
  const b = await complete({ n: 2, max_tokens: 8, seed: 11 });
  const c = await complete({ n: 2, max_tokens: 8, seed: 12 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(
    a.choices.map((x) => x.message.content),
    c.choices.map((x) => x.message.content),
  );
  assert.equal(a.choices[0]!.logprobs, null);
  const greedy1 = await complete({ max_tokens: 6, temperature: 0, seed: 1, logprobs: true });
  const greedy2 = await complete({ max_tokens: 6, temperature: 0, seed: 2, logprobs: true });
  assert.deepEqual(greedy1.choices[0]!.logprobs, greedy2.choices[0]!.logprobs);
});

test('complete: a stop string ends the completion before it with finish_reason stop', async () => {
  const free = await complete({ max_tokens: 12, seed: 3, temperature: 0 });
  const text = free.choices[0]!.message.content;
  const stop = text.slice(2, 3);
  assert.equal(stop.length, 1);
  const stopped = await complete({ max_tokens: 12, seed: 3, temperature: 0, stop: [stop] });
  assert.equal(stopped.choices[0]!.finish_reason, 'stop');
  assert.equal(stopped.choices[0]!.message.content, text.slice(0, text.indexOf(stop)));
});

test('no-op job (all rewards equal): num_sequences 0, the parent checkpoint unchanged', async () => {
  const choice = (await complete({ n: 2, max_tokens: 3, logprobs: true, seed: 5 })).choices;
  const groups = [{ trajectories: choice.map((c) => ({ reward: 0.7, messages_and_choices: [...PROMPT, c] })) }];
  const { events, outcome } = await run(job({ trajectoryGroups: groups }));
  assert.deepEqual(
    events.map((e) => e.type),
    ['training_started'],
  );
  assert.equal(events[0]!.data.num_sequences, 0);
  assert.equal(events[0]!.data.num_groups_trainable, 0);
  assert.equal(events[0]!.data.num_trajectories, 2);
  assert.equal(events[0]!.data.backend_wasm, 1);
  assert.equal(outcome.numGradientSteps, 0);
  assert.equal(sha(outcome.checkpoint), sha(encodeCheckpoint(initialPolicyState())));
});

test('content errors: a trajectory over the context window fails the job with TrainingContentError', async () => {
  const c = (await complete({ max_tokens: 2, logprobs: true, seed: 5 })).choices[0];
  const long = { reward: 1, messages_and_choices: [{ role: 'user', content: 'x'.repeat(700) }, c] };
  const groups = [{ trajectories: [long, { reward: 0, messages_and_choices: [...PROMPT, c] }] }];
  await assert.rejects(
    run(job({ trajectoryGroups: groups })),
    (err: Error) => err instanceof TrainingContentError && /trajectories\[0\].*context window/.test(err.message),
  );
});

test('abort: the job stops with an AbortError; the trainer keeps working afterwards', async () => {
  const choices = (await complete({ n: 4, max_tokens: 3, logprobs: true, seed: 9 })).choices;
  const groups = [{ trajectories: choices.map((c, i) => ({ reward: i % 2, messages_and_choices: [...PROMPT, c] })) }];
  const controller = new AbortController();
  const started = trainer.train(
    job({ trajectoryGroups: groups }),
    async (p) => {
      if (p.type === 'training_started') controller.abort(new Error('model deleted'));
    },
    controller.signal,
  );
  await assert.rejects(started, (err: Error) => err.name === 'AbortError' && /model deleted/.test(err.message));
  const again = await run(job({ trajectoryGroups: groups }));
  assert.equal(again.outcome.numGradientSteps, again.events[0]!.data.num_sequences);
});

test('events: training_started then one numeric gradient_step per sequence, each awaited before the next', async () => {
  const choices = (await complete({ n: 6, max_tokens: 4, logprobs: true, seed: 21 })).choices;
  const groups = [0, 1].map((g) => ({
    trajectories: choices.slice(g * 3, g * 3 + 3).map((c, i) => ({ reward: i, messages_and_choices: [...PROMPT, c] })),
  }));
  const log: string[] = [];
  const events: TrainingProgress[] = [];
  const outcome = await trainer.train(
    job({ trajectoryGroups: groups }),
    async (p) => {
      log.push(`begin ${p.type}`);
      events.push(p);
      await new Promise((r) => setTimeout(r, 50));
      log.push(`end ${p.type}`);
    },
    new AbortController().signal,
  );
  const started = events[0]!;
  assert.equal(started.type, 'training_started');
  for (const key of [
    'num_sequences',
    'num_trajectories',
    'num_groups_submitted',
    'num_groups_trainable',
    'sequence_length',
    'parent_step',
  ])
    assert.equal(typeof started.data[key], 'number', key);
  assert.equal(started.data.num_groups_trainable, 2);
  assert.equal(started.data.num_trajectories, 6);
  const steps = events.slice(1);
  assert.ok(steps.length >= 1, 'at least one gradient step');
  assert.equal(steps.length, started.data.num_sequences);
  assert.equal(outcome.numGradientSteps, steps.length);
  for (const s of steps) {
    assert.equal(s.type, 'gradient_step');
    for (const key of [
      'loss',
      'policy_loss',
      'grad_norm',
      'entropy',
      'learning_rate',
      'num_trainable_tokens',
      'probs_corr',
      'frac_clipped',
    ]) {
      assert.ok(Number.isFinite(s.data[key]), key);
    }
    assert.ok(s.data.grad_norm! > 0, `grad_norm ${s.data.grad_norm}`);
    // On-policy samples: the ratio is 1 before the first update.
    assert.ok(s.data.probs_corr! > 0.9, `probs_corr ${s.data.probs_corr}`);
  }
  // Each handler finished before the worker sent the next event.
  log.forEach((entry, i) => assert.equal(entry.split(' ')[0], i % 2 === 0 ? 'begin' : 'end'));
  assert.equal(outcome.metrics.learning_rate, steps[0]!.data.learning_rate);
});

test('a job with every §5.8 knob set runs; each metric is finite', async () => {
  const choices = (await complete({ n: 4, max_tokens: 4, logprobs: true, seed: 31 })).choices;
  const groups = [{ trajectories: choices.map((c, i) => ({ reward: i, messages_and_choices: [...PROMPT, c] })) }];
  const experimentalConfig = {
    ppo: true,
    epsilon: 0.1,
    mask_prob_ratio: true,
    precalculate_logprobs: true,
    importance_sampling_level: 'average',
    kimi_k2_tau: 0.1,
    max_negative_advantage_importance_sampling_weight: 3,
    truncated_importance_sampling: 2,
    advantage_balance: 0.5,
    scale_rewards: false,
  };
  const { events, outcome } = await run(job({ trajectoryGroups: groups, experimentalConfig }));
  assert.ok(outcome.numGradientSteps >= 1, 'at least one step');
  for (const [key, value] of Object.entries(outcome.metrics)) assert.ok(Number.isFinite(value), key);
  assert.equal(events.length, outcome.numGradientSteps + 1);
});

test('learning: mean reward of a toy task rises over a few RL jobs; checkpoints change', async () => {
  // Reward 1 when the first sampled byte is a lowercase ASCII letter (~10 % for the initial policy).
  const reward = (c: Body['choices'][number]) => {
    const b = c.logprobs!.content[0]?.bytes[0] ?? -1;
    return b >= 97 && b <= 122 ? 1 : 0;
  };
  let checkpoint: Uint8Array | null = null;
  const means: number[] = [];
  const gradNorms: number[] = [];
  for (let step = 0; step < 8; step++) {
    const parent = checkpoint;
    const handle = { id: parent ? `learn-${step}` : null, load: async () => parent };
    const groups = [];
    let total = 0;
    for (let g = 0; g < 4; g++) {
      const body = await complete({ n: 8, max_tokens: 2, logprobs: true, seed: step * 100 + g }, handle);
      groups.push({
        trajectories: body.choices.map((c) => ({ reward: reward(c), messages_and_choices: [...PROMPT, c] })),
      });
      total += body.choices.reduce((n, c) => n + reward(c), 0);
    }
    means.push(total / 32);
    const { events, outcome } = await run(
      job({
        parentStep: step,
        parentCheckpoint: parent,
        trajectoryGroups: groups,
        experimentalConfig: { learning_rate: 2.5e-5 },
        seed: step,
      }),
    );
    gradNorms.push(...events.filter((e) => e.type === 'gradient_step').map((e) => e.data.grad_norm!));
    // Compared by digest: a failing deep comparison of two 1.6 MB arrays spends minutes on its diff.
    if (outcome.numGradientSteps > 0)
      assert.notEqual(sha(outcome.checkpoint), sha(parent ?? encodeCheckpoint(initialPolicyState())));
    checkpoint = outcome.checkpoint;
  }
  const early = (means[0]! + means[1]!) / 2;
  const late = (means[6]! + means[7]!) / 2;
  assert.ok(late >= early + 0.2, `mean reward ${means.map((m) => m.toFixed(2)).join(' ')}`);
  // Groups that all hit the target stop contributing (equal rewards), so later jobs may have no steps.
  assert.ok(gradNorms.length >= 4 && gradNorms.every((g) => g > 0), `grad norms ${gradNorms.join(' ')}`);
});

test('SFT: one step per batch; the loss on the examples falls over epochs', async () => {
  const examples = Array.from({ length: 4 }, () => ({ messages: [...PROMPT, { role: 'assistant', content: 'q' }] }));
  let checkpoint: Uint8Array | null = null;
  const losses: number[] = [];
  for (let epoch = 0; epoch < 3; epoch++) {
    const { events, outcome } = await run(
      job({
        kind: 'sft',
        parentCheckpoint: checkpoint,
        sftExamples: examples,
        sftConfig: { batch_size: 2, learning_rate: [2e-5, 1e-5] },
      }),
    );
    assert.equal(events[0]!.data.num_sequences, 2);
    assert.deepEqual(
      events.slice(1).map((e) => e.data.learning_rate),
      [2e-5 * 1000, 1e-5 * 1000],
    );
    losses.push(outcome.metrics.loss!);
    checkpoint = outcome.checkpoint;
  }
  assert.ok(losses[2]! < losses[0]! * 0.8, `losses ${losses.join(' ')}`);
});
