/**
 * Seeds a training model over HTTP the way the ART client's ServerlessBackend drives it
 * (docs/spec/training.md §8): register with `return_existing`, then per step log the train groups,
 * create a training job from them and poll its events until it ends, and log a val batch at the new
 * step. Needs a server with a trainer (the UI tests use test/training-worker/scripted-trainer.ts).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

export interface SeededTraining {
  modelId: string;
  name: string;
  /** `val/reward` the server answered for each logged step, by step. */
  valReward: Map<number, number>;
  /** Every `/log` answer, in order. */
  logs: { split: string; step: number; metrics: Record<string, number> }[];
  jobIds: string[];
}

function trajectory(reward: number, win: boolean): Record<string, unknown> {
  return {
    messages_and_choices: [
      { role: 'user', content: 'Your move.' },
      {
        index: 0,
        finish_reason: 'stop',
        message: { role: 'assistant', content: 'B2' },
        logprobs: { content: [{ token: 'token_id:66', logprob: -0.7, bytes: [66], top_logprobs: [] }] },
      },
    ],
    reward,
    metrics: { win },
  };
}

/** Two groups of two; rewards rise towards 1 with the step so the curve has a shape. */
const groups = (step: number, offset: number) =>
  [0, 1].map((g) => ({
    trajectories: [0, 1].map((i) => trajectory(0.8 - 0.6 * 0.7 ** step + offset + g * 0.1 - i * 0.1, i === 0)),
  }));

export async function seedTraining(
  heddleUrl: string,
  key: string,
  project: string,
  steps = 3,
): Promise<SeededTraining> {
  const [entity, projectName] = project.split('/');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${heddleUrl}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.equal(res.status, 200, `${method} ${path}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const name = 'tic-tac-toe-agent';
  const model = await call('POST', '/preview/models', {
    entity,
    project: projectName,
    name,
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    return_existing: true,
  });
  const modelId = model.id as string;
  const out: SeededTraining = { modelId, name, valReward: new Map(), logs: [], jobIds: [] };
  const log = async (split: string, step: number) => {
    const res = await call('POST', `/preview/models/${modelId}/log`, {
      model_id: modelId,
      split,
      trajectory_groups: groups(step, split === 'val' ? 0.15 : 0.1),
    });
    const entry = { split, step: res.step as number, metrics: res.metrics as Record<string, number> };
    out.logs.push(entry);
    if (split === 'val') out.valReward.set(entry.step, entry.metrics['val/reward']!);
  };
  await log('val', 0);
  for (let step = 0; step < steps; step++) {
    await log('train', step);
    const job = await call('POST', '/preview/training-jobs', {
      model_id: modelId,
      trajectory_groups: groups(step, 0.1),
      experimental_config: { learning_rate: 5e-6 },
    });
    out.jobIds.push(job.id as string);
    for (let i = 0; ; i++) {
      const page = await call('GET', `/preview/training-jobs/${job.id as string}/events?limit=100`);
      const types = (page.data as { type: string }[]).map((e) => e.type);
      if (types.includes('training_ended')) break;
      assert.ok(!types.includes('training_failed') && i < 500, `job ${job.id as string}: ${types.join(',')}`);
      await sleep(20);
    }
    await log('val', step + 1);
  }
  return out;
}
