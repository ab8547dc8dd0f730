/**
 * TEST-ONLY external trainer, run as its own process (`node --import tsx external-worker.ts`): it
 * speaks the worker protocol of docs/training-worker-protocol.md over HTTP to a real server and
 * prints one JSON line per step, which the test reads. It does not learn; its checkpoint is a few
 * marker bytes.
 *
 * Environment: HEDDLE_URL, HEDDLE_KEY, WORKER_ID, WORKER_BASE_MODELS (comma-separated),
 * WORKER_SCENARIO = normal | stall | heartbeat-until-refused | advertise.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const url = process.env.HEDDLE_URL!;
const key = process.env.HEDDLE_KEY!;
const workerId = process.env.WORKER_ID ?? 'w1';
const baseModels = (process.env.WORKER_BASE_MODELS ?? '').split(',').filter(Boolean);
const scenario = process.env.WORKER_SCENARIO ?? 'normal';

interface Answer {
  status: number;
  body: unknown;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // binary (checkpoint download)
  }
  return { status: res.status, body: parsed };
}

const say = (step: string, data: unknown): void => {
  process.stdout.write(`${JSON.stringify({ step, data })}\n`);
};

interface Job {
  id: string;
  fencing_token: number;
  parent_step: number;
  trajectory_groups: unknown[];
}

/** Polls the lease route until it hands out a job (or gives up after `ms`). */
async function leaseJob(leaseSeconds: number, ms = 20_000): Promise<Job | null> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const res = await call('POST', '/v1/workers/lease', {
      worker_id: workerId,
      base_models: baseModels,
      lease_seconds: leaseSeconds,
    });
    const job = (res.body as { job?: Job | null }).job;
    if (res.status !== 200) say('lease_error', res);
    if (job) return job;
    await sleep(100);
  }
  return null;
}

const event = (
  job: Job,
  seq: number,
  type: string,
  data: Record<string, number>,
  token = job.fencing_token,
): Promise<Answer> => call('POST', `/v1/workers/jobs/${job.id}/events`, { fencing_token: token, seq, type, data });

async function normal(): Promise<void> {
  const job = await leaseJob(30);
  if (!job) return say('no_job', null);
  say('leased', {
    id: job.id,
    token: job.fencing_token,
    parent_step: job.parent_step,
    groups: job.trajectory_groups.length,
  });
  const parent = await fetch(`${url}/v1/workers/jobs/${job.id}/parent-checkpoint?fencing_token=${job.fencing_token}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  say('parent', {
    status: parent.status,
    step: parent.headers.get('x-heddle-parent-step'),
    bytes: Buffer.from(await parent.arrayBuffer()).toString('utf8'),
  });
  const started = await event(job, 1, 'training_started', { num_sequences: 1 });
  const retried = await event(job, 1, 'training_started', { num_sequences: 1 });
  say('started', { first: started, retry: retried });
  say('wrong_token', await event(job, 2, 'gradient_step', { loss: 1 }, job.fencing_token + 1));
  say('gradient', await event(job, 2, 'gradient_step', { loss: 0.25, grad_norm: 2 }));
  say('heartbeat', await call('POST', `/v1/workers/jobs/${job.id}/heartbeat`, { fencing_token: job.fencing_token }));
  const marker = `worker-${workerId}-from-${job.parent_step}`;
  const done = await call('POST', `/v1/workers/jobs/${job.id}/complete`, {
    fencing_token: job.fencing_token,
    checkpoint_base64: Buffer.from(marker).toString('base64'),
    metrics: { loss: 0.25 },
    num_gradient_steps: 1,
  });
  say('complete', done);
  say('after_complete', await event(job, 3, 'gradient_step', { loss: 1 }));
}

/** Leases with a 1 s lease, posts one event, then goes silent past the lease and tries again. */
async function stall(): Promise<void> {
  const job = await leaseJob(1);
  if (!job) return say('no_job', null);
  say('leased', { id: job.id, token: job.fencing_token });
  say('started', await event(job, 1, 'training_started', { num_sequences: 3 }));
  await sleep(Number(process.env.WORKER_STALL_MS ?? 3000));
  say('late_event', await event(job, 2, 'gradient_step', { loss: 1 }));
  say(
    'late_complete',
    await call('POST', `/v1/workers/jobs/${job.id}/complete`, {
      fencing_token: job.fencing_token,
      checkpoint_base64: '',
      num_gradient_steps: 0,
    }),
  );
}

/** Leases, then heartbeats every 100 ms until the server refuses (e.g. the model was deleted). */
async function heartbeatUntilRefused(): Promise<void> {
  const job = await leaseJob(30);
  if (!job) return say('no_job', null);
  say('started', await event(job, 1, 'training_started', { num_sequences: 1 }));
  say('leased', { id: job.id, token: job.fencing_token });
  for (let i = 0; i < 200; i += 1) {
    const beat = await call('POST', `/v1/workers/jobs/${job.id}/heartbeat`, { fencing_token: job.fencing_token });
    if (beat.status !== 200) return say('refused', beat);
    await sleep(100);
  }
  say('never_refused', null);
}

/** Only advertises its base models (one lease call that finds nothing). */
async function advertise(): Promise<void> {
  say('advertised', await call('POST', '/v1/workers/lease', { worker_id: workerId, base_models: baseModels }));
}

const scenarios: Record<string, () => Promise<void>> = {
  normal,
  stall,
  'heartbeat-until-refused': heartbeatUntilRefused,
  advertise,
};
const run = scenarios[scenario];
if (!run) throw new Error(`unknown WORKER_SCENARIO ${scenario}`);
await run();
