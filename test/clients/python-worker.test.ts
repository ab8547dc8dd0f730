import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { run } from './python-venv.js';
import { WORKER_SRC } from './worker-venv.js';
import { buildTinyModel, startWorker, workerPython } from './worker-process.js';

/**
 * The Python training worker (worker/, docs/training-worker-protocol.md) against a real Heddle
 * process on CPU: a tiny Llama-architecture model built from a config with seeded random weights
 * and a locally trained tokenizer (no download) goes through ten RL iterations driven over HTTP
 * like test/routes/training-learning.test.ts, with completions answered by the worker (routed by
 * Heddle) and LoRA checkpoints stored through Heddle. The worker's own Python tests run first.
 */

const BASE = 'test/tiny-llama';
const ITERATIONS = 10;
const GROUPS = 4;
const SAMPLES = 8;
const MESSAGES = [{ role: 'user', content: 'Say a letter.' }];

type Json = Record<string, any>;

async function api(s: ServerProcess, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${s.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: Json = {};
  try {
    json = JSON.parse(bytes.toString()) as Json;
  } catch {
    // binary body
  }
  return { status: res.status, json, bytes };
}

function reward(choice: Json): number {
  const first = (choice.logprobs?.content?.[0]?.bytes as number[] | undefined)?.[0] ?? -1;
  return first >= 97 && first <= 122 ? 1 : 0;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function waitForJob(s: ServerProcess, key: string, jobId: string, log: () => string): Promise<Json[]> {
  const deadline = Date.now() + 180_000;
  const events: Json[] = [];
  while (Date.now() < deadline) {
    const after = events.at(-1)?.id as string | undefined;
    const url = `/v1/preview/training-jobs/${jobId}/events?limit=100${after ? `&after=${after}` : ''}`;
    const res = await api(s, key, 'GET', url);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    events.push(...(res.json.data as Json[]));
    if (events.some((e) => e.type === 'training_ended' || e.type === 'training_failed')) return events;
    await sleep(100);
  }
  throw new Error(`job ${jobId} did not finish\n${log()}`);
}

test("the worker's Python tests (objective vectors, engine, sampling)", { timeout: 2_400_000 }, async (t) => {
  const python = await workerPython(t);
  if (!python) return;
  const res = await run(
    python,
    ['-m', 'unittest', 'discover', '-s', path.join(WORKER_SRC, 'tests'), '-t', WORKER_SRC],
    600_000,
  );
  assert.ok(res.ok, res.out);
  assert.match(res.out, /Ran \d+ tests/);
});

test(
  'ten RL iterations over HTTP on a tiny Llama with LoRA: reward rises, checkpoints are adapters, completions come from the worker',
  { timeout: 2_400_000 },
  async (t) => {
    const python = await workerPython(t);
    if (!python) return;
    const modelDir = await buildTinyModel(t, python);

    const s = await startServerProcess(t, { env: { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' } });
    const key = await s.createKey('acme', { user: 'alice' });
    const worker = await startWorker(t, python, s, key, BASE, modelDir);
    const log = () => `--- worker\n${worker.output().slice(-6000)}\n--- heddle\n${s.output().slice(-4000)}`;
    // the worker's first lease advertises its inference endpoint
    for (let i = 0; ; i++) {
      const health = await api(s, key, 'GET', '/v1/health');
      if ((health.json.workers?.inference_base_models as string[] | undefined)?.includes(BASE)) break;
      assert.ok(i < 300, `worker never became live\n${log()}`);
      await sleep(100);
    }
    const created = await api(s, key, 'POST', '/v1/preview/models', {
      project: 'rl',
      name: 'letters',
      base_model: BASE,
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const modelId = created.json.id as string;

    const means: number[] = [];
    const digests = new Set<string>();
    let step = 0;
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const groups = [];
      for (let g = 0; g < GROUPS; g++) {
        const res = await api(s, key, 'POST', '/v1/chat/completions', {
          model: `wandb-artifact:///acme/rl/letters:step${step}`,
          messages: MESSAGES,
          n: SAMPLES,
          max_tokens: 2,
          logprobs: true,
          seed: iteration * 100 + g,
        });
        assert.equal(res.status, 200, `${JSON.stringify(res.json)}\n${log()}`);
        const choices = res.json.choices as Json[];
        assert.equal(choices.length, SAMPLES);
        // the worker's tokens: one entry per sampled token, as token ids with a log-prob
        for (const c of choices)
          for (const e of c.logprobs.content as Json[]) {
            assert.match(e.token as string, /^token_id:\d+$/);
            assert.ok((e.logprob as number) <= 0);
          }
        groups.push({
          trajectories: choices.map((c) => ({ messages_and_choices: [...MESSAGES, c], reward: reward(c) })),
        });
      }
      means.push(mean(groups.flatMap((g) => g.trajectories.map((tr) => tr.reward))));

      const job = await api(s, key, 'POST', '/v1/preview/training-jobs', {
        model_id: modelId,
        trajectory_groups: groups,
        experimental_config: { learning_rate: 1e-2 },
      });
      assert.equal(job.status, 200, JSON.stringify(job.json));
      const events = await waitForJob(s, key, job.json.id as string, log);
      assert.equal(events.at(-1)!.type, 'training_ended', `${JSON.stringify(events.at(-1))}\n${log()}`);
      const record = await api(s, key, 'GET', `/v1/preview/training-jobs/${job.json.id}`);
      assert.equal(record.json.trainer, 'worker:cpu-test', 'the job names the worker that ran it');
      const norms = events.filter((e) => e.type === 'gradient_step').map((e) => Number(e.data.grad_norm));
      assert.ok(
        norms.every((n) => Number.isFinite(n)),
        JSON.stringify(norms),
      );

      step = Number(events.at(-1)!.data.step);
      assert.equal(step, iteration + 1);
      const bytes = await api(s, key, 'GET', `/v1/workers/models/${modelId}/checkpoints/${step}`);
      assert.equal(bytes.status, 200);
      const digest = createHash('sha256').update(bytes.bytes).digest('hex');
      if (norms.length > 0) assert.ok(!digests.has(digest), `step ${step} repeats an earlier checkpoint`);
      digests.add(digest);
      if (iteration === ITERATIONS - 1) fs.writeFileSync(path.join(modelDir, 'last.zip'), bytes.bytes);
    }
    const early = mean(means.slice(0, 2));
    const late = mean(means.slice(-2));
    const trace = `mean reward per iteration: ${means.map((m) => m.toFixed(2)).join(' ')}`;
    t.diagnostic(trace);
    assert.ok(late >= early + 0.3, `${trace}\n${log()}`);

    // an SFT job (data: URL of train.jsonl lines) trains on the worker too, from the last RL step
    const lines = ['a', 'b', 'c', 'd'].map((c) =>
      JSON.stringify({ messages: [...MESSAGES, { role: 'assistant', content: c }] }),
    );
    const sft = await api(s, key, 'POST', '/v1/preview/sft-training-jobs', {
      model_id: modelId,
      training_folder_url: `data:application/jsonl;base64,${Buffer.from(lines.join('\n')).toString('base64')}`,
      config: { batch_size: 2, learning_rate: 1e-2 },
    });
    assert.equal(sft.status, 200, JSON.stringify(sft.json));
    const sftEvents = await waitForJob(s, key, sft.json.id as string, log);
    assert.deepEqual(
      sftEvents.map((e) => e.type),
      ['training_started', 'gradient_step', 'gradient_step', 'training_ended'],
      `${JSON.stringify(sftEvents)}\n${log()}`,
    );
    assert.equal(sftEvents.at(-1)!.data.step, ITERATIONS + 1);
    assert.ok(sftEvents.filter((e) => e.type === 'gradient_step').every((e) => Number(e.data.loss) > 0));

    // the last checkpoint is a peft LoRA adapter that loads onto the base model and changes it
    const check = [
      'import io, sys, zipfile, tempfile, torch',
      'from transformers import AutoModelForCausalLM',
      'from peft import PeftModel',
      `d = ${JSON.stringify(modelDir)}`,
      'out = tempfile.mkdtemp(); zipfile.ZipFile(d + "/last.zip").extractall(out)',
      'base = AutoModelForCausalLM.from_pretrained(d); ids = torch.tensor([[3, 4, 5, 6]])',
      'before = base(ids).logits',
      'tuned = PeftModel.from_pretrained(base, out)',
      'print("LORA", tuned.peft_config["default"].peft_type, bool((tuned(ids).logits - before).abs().max() > 1e-4))',
    ].join('\n');
    const loaded = await run(python, ['-c', check], 300_000);
    assert.ok(loaded.ok, loaded.out);
    assert.match(loaded.out, /LORA PeftType\.LORA True/);
  },
);

test(
  'a worker stopped by SIGTERM mid-job hands the job back: it fails at once with the reason, not at lease expiry',
  { timeout: 600_000 },
  async (t) => {
    const python = await workerPython(t);
    if (!python) return;
    const modelDir = await buildTinyModel(t, python);
    const s = await startServerProcess(t, { env: { HEDDLE_TRAINING_BUILTIN_FALLBACK: 'false' } });
    const key = await s.createKey('acme', { user: 'alice' });
    // one history per gradient step, so the job takes hundreds of steps
    const worker = await startWorker(t, python, s, key, BASE, modelDir, [
      '--batch-tokens',
      '16',
      '--lease-seconds',
      '600',
    ]);
    const log = () => `--- worker\n${worker.output().slice(-6000)}\n--- heddle\n${s.output().slice(-4000)}`;
    const created = await api(s, key, 'POST', '/v1/preview/models', {
      project: 'rl',
      name: 'stopped',
      base_model: BASE,
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const choice = (id: number) => ({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: '' },
      logprobs: { content: [{ token: `token_id:${id}`, logprob: -1 }] },
    });
    const groups = Array.from({ length: 200 }, (_, g) => ({
      trajectories: [0, 1].map((r) => ({
        messages_and_choices: [...MESSAGES, choice(40 + ((g + r) % 50))],
        reward: r,
      })),
    }));
    const job = await api(s, key, 'POST', '/v1/preview/training-jobs', {
      model_id: created.json.id,
      trajectory_groups: groups,
      experimental_config: { learning_rate: 1e-3 },
    });
    assert.equal(job.status, 200, JSON.stringify(job.json));
    const jobId = job.json.id as string;
    for (let i = 0; ; i++) {
      const ev = await api(s, key, 'GET', `/v1/preview/training-jobs/${jobId}/events?limit=100`);
      if ((ev.json.data as Json[]).some((e) => e.type === 'gradient_step')) break;
      assert.ok(i < 1200, `no gradient step\n${log()}`);
      await sleep(100);
    }
    worker.child.kill('SIGTERM');
    const events = await waitForJob(s, key, jobId, log);
    const last = events.at(-1)!;
    assert.equal(last.type, 'training_failed', `${JSON.stringify(last)}\n${log()}`);
    assert.match(String(last.data.error_message), /stopped while the job was running \(SIGTERM\)/, log());
    const steps = events.filter((e) => e.type === 'gradient_step').length;
    assert.ok(steps < events[0]!.data.num_sequences, `the job ran to its end (${steps} steps)\n${log()}`);
    for (let i = 0; worker.child.exitCode === null; i++) {
      assert.ok(i < 600, `the worker did not exit\n${log()}`);
      await sleep(100);
    }
    assert.equal(worker.child.exitCode, 0, log());
    assert.match(worker.output(), /handed back: failed/);
  },
);
