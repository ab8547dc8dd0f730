/**
 * Built-in trainer benchmark (npx tsx bench/training.ts): gradient steps per second of the byte
 * policy on each tfjs backend, completion latency, and the main thread's event-loop delay
 * (perf_hooks.monitorEventLoopDelay) while a job runs in the worker thread. BENCH_STEPS sets the
 * number of rows per job (default 8); BENCH_BACKENDS e.g. "wasm" or "wasm,cpu" (default both).
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BuiltinTrainer } from '../src/training/builtin-trainer.js';
import type { TrainingProgress } from '../src/training/trainer-port.js';

const STEPS = Number(process.env.BENCH_STEPS ?? 8);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'wasm,cpu').split(',') as ('wasm' | 'cpu')[];

/** A sampled turn of `length` byte tokens, in the shape the built-in sampler returns. */
function choice(length: number, seed: number) {
  const ids = Array.from({ length }, (_, i) => 97 + ((seed * 31 + i * 7) % 26));
  return {
    index: 0,
    finish_reason: 'length',
    message: { role: 'assistant', content: String.fromCharCode(...ids) },
    logprobs: { content: ids.map((id) => ({ token: `token_id:${id}`, logprob: -5.5, bytes: [id], top_logprobs: [] })) },
  };
}

/** Groups whose trajectories fill about one 512-token row each (`rows` rows in all). */
function groups(rows: number) {
  return Array.from({ length: Math.ceil(rows / 2) }, (_, g) => ({
    trajectories: [0, 1].map((i) => ({
      reward: i,
      messages_and_choices: [{ role: 'user', content: `question ${g}` }, choice(480, g * 2 + i)],
    })),
  }));
}

async function trainRun(trainer: BuiltinTrainer, rows: number) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const stamps: number[] = [];
  let tokens = 0;
  delay.enable();
  const t0 = performance.now();
  await trainer.train(
    {
      jobId: 'bench',
      kind: 'rl',
      baseModel: 'builtin',
      parentStep: 0,
      parentCheckpoint: null,
      trajectoryGroups: groups(rows),
      experimentalConfig: null,
      seed: 1,
    },
    async (p: TrainingProgress) => {
      stamps.push(performance.now());
      if (p.type === 'gradient_step') tokens += p.data.num_trainable_tokens!;
    },
    new AbortController().signal,
  );
  const total = performance.now() - t0;
  delay.disable();
  // Steady state: from the first gradient step to the last (excludes row building and the first step's warm-up).
  const steady = (stamps[stamps.length - 1]! - stamps[1]!) / Math.max(1, stamps.length - 2);
  return {
    total,
    stepMs: steady,
    steps: stamps.length - 1,
    tokens,
    delayP50: delay.percentile(50) / 1e6,
    delayP99: delay.percentile(99) / 1e6,
    delayMax: delay.max / 1e6,
  };
}

/** The same delay histogram with no job running: what the loaded machine alone costs. */
async function idleDelay(ms: number) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((r) => setTimeout(r, ms));
  delay.disable();
  return `${(delay.percentile(50) / 1e6).toFixed(1)} / ${(delay.percentile(99) / 1e6).toFixed(1)} / ${(delay.max / 1e6).toFixed(1)}`;
}

async function completionMs(trainer: BuiltinTrainer, n: number, maxTokens: number): Promise<number> {
  const request = {
    messages: [{ role: 'user', content: 'Write a short line.' }],
    n,
    max_tokens: maxTokens,
    logprobs: true,
    seed: 1,
    temperature: 1,
  };
  await trainer.complete({ id: null, load: async () => null }, request);
  const t0 = performance.now();
  await trainer.complete({ id: null, load: async () => null }, request);
  return performance.now() - t0;
}

async function main() {
  const lines = [
    '| backend | rows × tokens | job total (s) | ms / gradient step | steps / s | trained tokens / s | loop delay during job p50 / p99 / max (ms) | idle loop delay (ms) | completion n=1×64 tok (ms) | completion n=8×16 tok (ms) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const backend of BACKENDS) {
    const trainer = await BuiltinTrainer.create({ backend });
    try {
      const rows = backend === 'cpu' ? Math.max(3, Math.ceil(STEPS / 4)) : STEPS;
      await trainRun(trainer, 2); // warm the training thread
      const r = await trainRun(trainer, rows);
      const idle = await idleDelay(Math.min(5000, r.total));
      const single = await completionMs(trainer, 1, 64);
      const batch = await completionMs(trainer, 8, 16);
      lines.push(
        `| ${trainer.name}@${trainer.backendName} | ${r.steps} × ~500 | ${(r.total / 1000).toFixed(1)} | ${r.stepMs.toFixed(0)} | ${(1000 / r.stepMs).toFixed(2)} | ${((r.tokens / r.steps) * (1000 / r.stepMs)).toFixed(0)} | ${r.delayP50.toFixed(1)} / ${r.delayP99.toFixed(1)} / ${r.delayMax.toFixed(1)} | ${idle} | ${single.toFixed(0)} | ${batch.toFixed(0)} |`,
      );
    } finally {
      await trainer.close();
    }
  }
  console.log(lines.join('\n'));
  console.log(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
