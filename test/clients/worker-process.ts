import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from '../helpers/server-process.js';
import { run } from './python-venv.js';
import { WORKER_SRC, ensureWorkerVenv } from './worker-venv.js';

/** The worker venv's python, or null after skipping (never under CI=true, where a missing venv fails). */
export async function workerPython(t: TestContext): Promise<string | null> {
  const venv = await ensureWorkerVenv();
  if (venv.ok) return venv.python;
  if (process.env.CI === 'true') assert.fail(`cannot install the worker's venv: ${venv.reason}`);
  t.skip(`worker venv unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
  return null;
}

export const pyEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: os.tmpdir(),
  PYTHONPATH: WORKER_SRC,
  PYTHONUNBUFFERED: '1',
  // no hub lookups: everything the worker loads is local
  HF_HUB_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  OMP_NUM_THREADS: '2',
});

/** A tiny Llama with seeded random weights and a locally trained tokenizer (worker/heddle_worker/tiny.py). */
export async function buildTinyModel(t: TestContext, python: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-tiny-llama-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const code = `import sys; sys.path.insert(0, ${JSON.stringify(WORKER_SRC)}); from heddle_worker.tiny import build; print(build(${JSON.stringify(dir)}, seed=0))`;
  const built = await run(python, ['-c', code], 300_000);
  assert.ok(built.ok, built.out);
  return dir;
}

/** Starts `python -m heddle_worker`; resolves once it printed its ready line. */
export async function startWorker(
  t: TestContext,
  python: string,
  s: ServerProcess,
  key: string,
  base: string,
  modelDir: string,
  extra: string[] = [],
) {
  const args = ['-m', 'heddle_worker', '--server', s.url, '--api-key', key, '--model', `${base}=${modelDir}`];
  args.push('--worker-id', 'cpu-test', '--device', 'cpu', '--dtype', 'float32', '--poll-seconds', '0.2');
  // CPU tests: a small KV cache (the defaults size it for a GPU)
  args.push('--serve-slots', '16', '--serve-max-len', '1024', ...extra);
  const child: ChildProcess = spawn(python, args, { env: pyEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-20_000)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const deadline = Date.now() + 180_000;
  while (!out.includes('heddle-worker: ready')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${out}`);
    await sleep(100);
  }
  return { output: () => out, child };
}
