/**
 * The worker thread of the built-in trainer: initialises tfjs, then serves `train` and `complete`
 * requests one at a time, so the API's event loop never runs tfjs. Progress events wait for the
 * main thread's `ack` (the service persisted the event) before training goes on.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadPolicyState } from '../policy/checkpoint.js';
import { initBackend } from '../policy/tf-backend.js';
import { TfPolicy } from '../policy/tf-policy.js';
import { TrainingContentError } from '../trainer-port.js';
import type { FromWorker, ToWorker, WorkerOptions } from './protocol.js';
import { runRlJob } from './rl-job.js';
import { completeChat } from './sample.js';
import { runSftJob } from './sft-job.js';

const port = parentPort!;
const options = workerData as WorkerOptions;
const waiting = new Map<number, (value: ToWorker) => void>();
const cache = new Map<string, TfPolicy>();
// Requests wait for the backend: tfjs ops must not run before setBackend has settled.
const ready = initBackend(options.backend);
let queue: Promise<unknown> = ready;

const send = (message: FromWorker) => port.postMessage(message);

/** Resolves with the main thread's next `ack` or `checkpoint` message for request `id`. */
function reply(id: number): Promise<ToWorker> {
  return new Promise((resolve) => waiting.set(id, resolve));
}

/** LRU of loaded policies by checkpoint id ('' = the step-0 policy). */
async function policyFor(id: number, checkpointId: string | null): Promise<TfPolicy> {
  const key = checkpointId ?? '';
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  let bytes: Uint8Array | null = null;
  if (checkpointId !== null) {
    const answer = reply(id);
    send({ type: 'need_checkpoint', id });
    const message = await answer;
    bytes = message.type === 'checkpoint' ? message.bytes : null;
  }
  const policy = TfPolicy.load(loadPolicyState(bytes));
  cache.set(key, policy);
  while (cache.size > Math.max(1, options.cacheSize)) {
    const [oldest, evicted] = cache.entries().next().value as [string, TfPolicy];
    cache.delete(oldest);
    evicted.dispose();
  }
  return policy;
}

async function handle(message: ToWorker): Promise<void> {
  try {
    if (message.type === 'train') {
      const emit = async (progress: FromWorker & { type: 'progress' }) => {
        const ack = reply(message.id);
        send(progress);
        await ack;
      };
      const run = message.input.kind === 'sft' ? runSftJob : runRlJob;
      const value = await run(message.input, (progress) => emit({ type: 'progress', id: message.id, progress }));
      send({ type: 'result', id: message.id, value });
    } else if (message.type === 'complete') {
      const policy = await policyFor(message.id, message.checkpointId);
      send({ type: 'result', id: message.id, value: completeChat(policy, message.request) });
    }
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const name = e instanceof TrainingContentError ? 'TrainingContentError' : e.name;
    send({ type: 'error', id: message.id, name, message: e.message });
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'ack' || message.type === 'checkpoint') {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message);
    return;
  }
  queue = queue.then(() => handle(message));
});

void ready.then((backend) => send({ type: 'ready', backend }));
