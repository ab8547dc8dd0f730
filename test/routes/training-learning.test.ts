import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { BuiltinTrainer } from '../../src/training/builtin-trainer.js';
import { createModel, runJob } from './training-fixture.js';

/**
 * The whole RL loop through HTTP, as a client drives it (docs/spec/training.md §6): sample with logprobs from
 * the newest checkpoint → score with a toy reward → `/log` → training job → poll its events → sample
 * from the new checkpoint. Over ten iterations the built-in policy learns the toy task.
 */

const ITERATIONS = 10;
const GROUPS = 4;
const SAMPLES = 8;
const MESSAGES = [{ role: 'user', content: 'Say a letter.' }];

interface Choice {
  logprobs: { content: { bytes: number[] }[] } | null;
}

/** 1 when the first sampled byte is a lowercase ASCII letter (about one in ten for the initial policy). */
function reward(choice: Choice): number {
  const first = choice.logprobs?.content[0]?.bytes[0] ?? -1;
  return first >= 97 && first <= 122 ? 1 : 0;
}

const sha = (bytes: Uint8Array | null) => (bytes === null ? null : createHash('sha256').update(bytes).digest('hex'));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test(
  'RL end to end through HTTP: mean reward rises over ten iterations, checkpoints change, grad_norm > 0',
  { timeout: 300_000 },
  async (t) => {
    const h = await buildTestApp(t, {}, { trainer: await BuiltinTrainer.create() });
    const modelId = await createModel(h, 'letters');
    const means: number[] = [];
    const gradNorms: number[] = [];
    const digests = new Set<string | null>();
    let step = 0;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const groups = [];
      for (let g = 0; g < GROUPS; g++) {
        const res = await h.post('/v1/chat/completions', {
          model: `wandb-artifact:///acme/rl/letters:step${step}`,
          messages: MESSAGES,
          n: SAMPLES,
          max_tokens: 2,
          logprobs: true,
          seed: iteration * 100 + g,
        });
        assert.equal(res.statusCode, 200, res.body);
        const choices = res.json().choices as Choice[];
        assert.equal(choices.length, SAMPLES);
        groups.push({
          trajectories: choices.map((c) => ({ messages_and_choices: [...MESSAGES, c], reward: reward(c) })),
        });
      }
      means.push(mean(groups.flatMap((g) => g.trajectories.map((tr) => tr.reward))));

      const logged = await h.post(`/v1/preview/models/${modelId}/log`, { split: 'train', trajectory_groups: groups });
      assert.equal(logged.statusCode, 200, logged.body);

      const { events } = await runJob(h, modelId, groups, { learning_rate: 2.5e-5 });
      assert.equal(events.at(-1)!.type, 'training_ended', JSON.stringify(events.at(-1)));
      const stepNorms = events.filter((e) => e.type === 'gradient_step').map((e) => Number(e.data.grad_norm));
      gradNorms.push(...stepNorms);

      const latest = await h.get(`/v1/preview/models/${modelId}/checkpoints?order=desc&limit=1`);
      assert.equal(latest.statusCode, 200, latest.body);
      const checkpoint = latest.json().data[0] as { id: string; step: number };
      assert.equal(checkpoint.step, step + 1, 'each successful job adds the next step');
      step = checkpoint.step;
      const digest = sha(await h.store.training.checkpointData(`acme/rl`, modelId, checkpoint.id));
      assert.notEqual(digest, null);
      // A job with gradient steps writes new weights; one whose groups all scored alike has none to take.
      if (stepNorms.length > 0) assert.ok(!digests.has(digest), `step ${step} repeats an earlier checkpoint's bytes`);
      digests.add(digest);
    }
    const early = mean(means.slice(0, 2));
    const late = mean(means.slice(-2));
    const trace = `mean reward per iteration: ${means.map((m) => m.toFixed(2)).join(' ')}`;
    t.diagnostic(trace);
    assert.ok(late >= early + 0.3, trace);
    assert.ok(
      gradNorms.length >= 4 && gradNorms.every((g) => Number.isFinite(g) && g > 0),
      `grad norms ${gradNorms.join(' ')}`,
    );
  },
);
