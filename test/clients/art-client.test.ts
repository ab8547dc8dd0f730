import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { runArt, type ArtJson } from './art-script.js';
import { ART_VERSION, ensureArtVenv } from './art-venv.js';
import { buildTinyModel, startWorker, workerPython } from './worker-process.js';

/**
 * The official OpenPipe ART client (PyPI openpipe-art, pinned) runs a short serverless RL loop
 * against a real Heddle process (docs/spec/training.md §8; docs/art-client.md): register, rollouts through
 * the client's OpenAI-compatible inference with logprobs, backend.train (job + event polling),
 * get_step, delete_checkpoints, backend.delete. Outcomes are then checked over raw HTTP.
 */

const PROJECT = 'art-demo';
const NAME = 'toy-bot';
const STEPS = 3;
/** Per step the script samples 2 groups x 4 rollouts for training and the same again for validation. */
const COMPLETIONS_PER_STEP = 16;

type Json = ArtJson;

async function call(
  server: ServerProcess,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    // keep the text for the assertion message
  }
  return { status: res.status, json };
}

/** Follows the cursor envelope (docs/spec/training.md §1.1) to the end, as the client's auto-pagination does. */
async function listAll(server: ServerProcess, key: string, url: string): Promise<Json[]> {
  const items: Json[] = [];
  let after = '';
  for (let page = 0; page < 100; page++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await call(server, key, 'GET', `${url}${after ? `${sep}after=${after}` : ''}`);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.json)}`);
    items.push(...res.json.data);
    if (!res.json.has_more || res.json.data.length === 0) return items;
    after = res.json.last_id;
  }
  throw new Error(`${url}: more than 100 pages`);
}

/** One finished job of the loop: its record, and its events in order with exactly one terminal event. */
async function assertJobSucceeded(
  server: ServerProcess,
  key: string,
  jobId: string,
  modelId: string,
  step: number,
  log: string,
): Promise<void> {
  const job = await call(server, key, 'GET', `/v1/preview/training-jobs/${jobId}`);
  assert.equal(job.status, 200, JSON.stringify(job.json));
  assert.equal(job.json.id, jobId);
  assert.equal(job.json.model_id, modelId);
  assert.equal(job.json.status, 'succeeded', `${JSON.stringify(job.json)}\n${log}`);
  assert.equal(job.json.step, step);
  const events = await listAll(server, key, `/v1/preview/training-jobs/${jobId}/events`);
  const types = events.map((e) => e.type);
  assert.equal(types[0], 'training_started', types.join(','));
  assert.equal(types.at(-1), 'training_ended', types.join(','));
  assert.equal(types.filter((x) => x === 'training_ended' || x === 'training_failed').length, 1, types.join(','));
  const gradientSteps = events.filter((e) => e.type === 'gradient_step');
  assert.equal(gradientSteps.length, events[0]!.data.num_sequences, JSON.stringify(events[0]));
  for (const e of gradientSteps)
    for (const v of Object.values(e.data)) assert.equal(typeof v, 'number', JSON.stringify(e));
  assert.equal(events.at(-1)!.data.step, step, JSON.stringify(events.at(-1)));
}

/** The venv's python, or null after skipping (never under CI=true, where a missing venv fails). */
async function artPython(t: TestContext): Promise<string | null> {
  const venv = await ensureArtVenv();
  if (venv.ok) return venv.python;
  if (process.env.CI === 'true') assert.fail(`cannot install openpipe-art==${ART_VERSION}: ${venv.reason}`);
  t.skip(`openpipe-art==${ART_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
  return null;
}

/** A fresh server and a key of alice (entity acme). */
async function startHeddle(t: TestContext): Promise<{ server: ServerProcess; key: string }> {
  // Default settings on purpose: ART samples a whole step's rollouts at once (here 2 groups x 4),
  // more than the default inference concurrency, so the surplus must wait in line, not get 429.
  const server = await startServerProcess(t);
  return { server, key: await server.createKey('acme', { user: 'alice' }) };
}

test(`ART serverless training loop through openpipe-art==${ART_VERSION}`, { timeout: 20 * 60_000 }, async (t) => {
  const python = await artPython(t);
  if (python === null) return;
  const { server, key } = await startHeddle(t);

  const { result, log } = await runArt(python, server, key, ['train', PROJECT, NAME, String(STEPS)]);
  const modelId = result.model_id as string;
  assert.match(modelId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, log);
  assert.equal(result.entity, 'acme', log);
  assert.equal(result.start_step, 0, log);
  assert.equal(result.final_step, STEPS, log);

  // every rollout went through /v1/chat/completions and came back with token logprobs
  assert.equal(result.stats.completions, STEPS * COMPLETIONS_PER_STEP, log);
  assert.equal(result.stats.choices_with_logprobs, result.stats.completions, log);
  assert.ok(result.stats.logprob_tokens > 0, log);
  // some rollouts scored exactly 0, so the jobs above carried trajectories without a `reward` key
  assert.ok(result.stats.zero_rewards > 0, log);

  // backend.train returned after each job's training_ended with the new step
  const steps = result.steps as Json[];
  assert.deepEqual(
    steps.map((s) => s.step),
    [1, 2, 3],
    log,
  );
  assert.deepEqual(
    steps.map((s) => s.artifact_name),
    [1, 2, 3].map((n) => `acme/${PROJECT}/${NAME}:step${n}`),
    log,
  );
  for (const s of steps) assert.equal(s.inference_name, `wandb-artifact:///acme/${PROJECT}/${NAME}`);
  assert.ok(
    steps.some((s) => s.metric_keys.includes('loss/train')),
    `no step reported gradient-step metrics\n${log}`,
  );

  const jobIds = result.job_ids as string[];
  assert.equal(jobIds.length, STEPS, log);
  for (const [i, jobId] of jobIds.entries()) await assertJobSucceeded(server, key, jobId, modelId, i + 1, log);

  // ART never calls /log: each job recorded the mean reward of its groups at its step, once (docs/art-client.md)
  const history = await listAll(server, key, `/v1/preview/models/${modelId}/history`);
  assert.deepEqual(
    history.map((r) => [r.step, r.split]),
    steps.map((s) => [s.step, 'train']),
  );
  for (const [i, row] of history.entries())
    assert.ok(Math.abs(row.metrics['train/reward'] - steps[i]!.train_reward) < 1e-9, JSON.stringify([row, steps[i]]));

  // delete_checkpoints kept the latest step and the best val/reward step (its local history) only
  const kept = (await listAll(server, key, `/v1/preview/models/${modelId}/checkpoints?limit=1`)).map((c) => c.step);
  const bestVal = Math.max(...steps.map((s) => s.val_reward));
  assert.ok(kept.includes(STEPS), `latest checkpoint deleted: ${kept}`);
  assert.ok(kept.length <= 2, `kept ${kept}`);
  for (const step of kept.filter((s) => s !== STEPS))
    assert.equal(steps[step - 1]!.val_reward, bestVal, `kept ${kept}: ${JSON.stringify(steps)}`);
  const newest = await call(server, key, 'GET', `/v1/preview/models/${modelId}/checkpoints?limit=1&order=desc`);
  assert.equal(newest.json.data[0].step, STEPS);

  // the newest checkpoint serves inference by its step name
  const chat = await call(server, key, 'POST', '/v1/chat/completions', {
    model: `wandb-artifact:///acme/${PROJECT}/${NAME}:step${STEPS}`,
    messages: [{ role: 'user', content: 'Say aaa.' }],
    max_tokens: 4,
    logprobs: true,
  });
  assert.equal(chat.status, 200, JSON.stringify(chat.json));
  assert.ok(chat.json.choices[0].logprobs.content.length > 0, JSON.stringify(chat.json));

  // backend.delete removes the model; its checkpoints are gone
  const deleted = await runArt(python, server, key, ['delete', PROJECT, NAME]);
  assert.equal(deleted.result.model_id, modelId, deleted.log);
  assert.equal(deleted.result.step_before_delete, STEPS, deleted.log);
  const gone = await call(server, key, 'GET', `/v1/preview/models/${modelId}/checkpoints`);
  assert.equal(gone.status, 404, JSON.stringify(gone.json));
});

test(
  `rollouts captured by art.Trajectory() scopes (exchanges form) train through openpipe-art==${ART_VERSION}`,
  { timeout: 10 * 60_000 },
  async (t) => {
    const python = await artPython(t);
    if (python === null) return;
    const { server, key } = await startHeddle(t);
    const { result, log } = await runArt(python, server, key, ['captured', PROJECT, 'captured-bot']);
    // ART sent every trajectory as `exchanges` only (docs/art-client.md), and the job trained on them
    assert.equal(result.stats.completions, 8, log);
    assert.equal(result.sent_exchanges, 8, log);
    assert.equal(result.step, 1, log);
    assert.equal(result.job_ids.length, 1, log);
    await assertJobSucceeded(server, key, result.job_ids[0], result.model_id, 1, log);
    const events = await listAll(server, key, `/v1/preview/training-jobs/${result.job_ids[0]}/events`);
    const rewards = result.rewards as number[];
    const groupsVary = [0, 4].some((i) => new Set(rewards.slice(i, i + 4)).size > 1);
    if (groupsVary)
      assert.ok(
        events[0]!.data.num_sequences > 0,
        `rewards ${rewards} vary but nothing was trainable: ${JSON.stringify(events[0])}`,
      );
  },
);

test(
  `ART serverless training loop against the Python training worker (worker/) through openpipe-art==${ART_VERSION}`,
  { timeout: 20 * 60_000 },
  async (t) => {
    const python = await artPython(t);
    if (python === null) return;
    const workerPy = await workerPython(t);
    if (workerPy === null) return;
    // the script's base model, served by the worker with a tiny local Llama in its place
    const base = 'OpenPipe/Qwen3-14B-Instruct';
    const modelDir = await buildTinyModel(t, workerPy);
    const server = await startServerProcess(t, { env: { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' } });
    const key = await server.createKey('acme', { user: 'alice' });
    const worker = await startWorker(t, workerPy, server, key, base, modelDir);
    for (let i = 0; ; i++) {
      const health = await call(server, key, 'GET', '/v1/health');
      if ((health.json.workers?.inference_base_models as string[] | undefined)?.includes(base)) break;
      assert.ok(i < 300, `worker never became live\n${worker.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { result, log: artLog } = await runArt(python, server, key, ['train', PROJECT, 'worker-bot', String(STEPS)]);
    const log = `${artLog}\n--- worker\n${worker.output().slice(-6000)}`;
    assert.equal(result.final_step, STEPS, log);
    assert.equal(result.stats.completions, STEPS * COMPLETIONS_PER_STEP, log);
    assert.equal(result.stats.choices_with_logprobs, result.stats.completions, log);
    const jobIds = result.job_ids as string[];
    assert.equal(jobIds.length, STEPS, log);
    for (const [i, jobId] of jobIds.entries()) {
      await assertJobSucceeded(server, key, jobId, result.model_id as string, i + 1, log);
      const job = await call(server, key, 'GET', `/v1/preview/training-jobs/${jobId}`);
      assert.equal(job.json.trainer, 'worker:cpu-test', log);
    }
  },
);
