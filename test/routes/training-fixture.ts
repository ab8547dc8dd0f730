import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';

/** Shared pieces of the training route tests (training spec). */

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

export function del(h: TestApp, url: string, body?: unknown, key = h.aliceKey): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method: 'DELETE',
    url,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A trajectory with a trainable Choice (logprobs present). */
export function traj(reward: number, metrics: Record<string, number | boolean> = {}): Record<string, unknown> {
  return {
    messages_and_choices: [
      { role: 'user', content: 'play' },
      {
        index: 0,
        finish_reason: 'stop',
        message: { role: 'assistant', content: 'a1' },
        logprobs: { content: [{ token: 'token_id:97', logprob: -0.5, bytes: [97], top_logprobs: [] }] },
      },
    ],
    reward,
    metrics,
  };
}

export function group(rewards: number[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { trajectories: rewards.map((r) => traj(r)), ...extra };
}

export async function createModel(h: TestApp, name = 'bot', baseModel = 'heddle/byte-decoder'): Promise<string> {
  const res = await h.post('/v1/preview/models', { project: 'rl', name, base_model: baseModel, return_existing: true });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id as string;
}

export interface JobEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Polls the events as ART does (§6.3) until a terminal event; fails after `timeoutMs`. */
export async function pollEvents(h: TestApp, jobId: string, timeoutMs = 20_000): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const after = events.at(-1)?.id;
    const res = await h.get(`/v1/preview/training-jobs/${jobId}/events?limit=100${after ? `&after=${after}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    events.push(...(res.json().data as JobEvent[]));
    if (events.some((e) => e.type === 'training_ended' || e.type === 'training_failed')) return events;
    await sleep(20);
  }
  throw new Error(`job ${jobId} did not finish in ${timeoutMs} ms; events: ${JSON.stringify(events)}`);
}

/** Creates an RL job and waits for its terminal event. */
export async function runJob(
  h: TestApp,
  modelId: string,
  groups: unknown[],
  config: unknown = null,
): Promise<{ id: string; events: JobEvent[] }> {
  const res = await h.post('/v1/preview/training-jobs', {
    model_id: modelId,
    trajectory_groups: groups,
    experimental_config: config,
  });
  assert.equal(res.statusCode, 200, res.body);
  const id = res.json().id as string;
  return { id, events: await pollEvents(h, id) };
}
