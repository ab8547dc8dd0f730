/**
 * Two online monitors for the monitors page (test/ui/monitors.test.ts, screenshots): `sums`, active,
 * scoring `solve` calls with an `LLMAsAJudgeScorer` through the loopback judge of
 * test/routes/evaluations-server-fixture.ts, and `idle-monitor`, inactive, with a query and half
 * sampling. Three `solve` calls finish after `sums` is active; the seed returns once each is scored.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  monitorValue,
  providerEnv,
  publish,
  publishJudge,
  publishModel,
} from '../routes/evaluations-server-fixture.js';
import type { UiServer } from './harness.js';
import { PROJECT } from './seed.js';

/** The server settings a monitor needs here: the judge's base URL, a fast poll. */
export const monitorEnv = (judgeBaseUrl: string): Record<string, string> => ({
  ...providerEnv(judgeBaseUrl),
  HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
  HEDDLE_MONITOR_POLL_MS: '50',
  HEDDLE_MONITOR_SCAN_SECONDS: '0.5',
  HEDDLE_JOBS_CONCURRENCY: '2',
});

const OP = `weave:///${PROJECT}/op/solve:abc123`;
/** question, expected, the answer the call gives (1+1 is answered wrong) */
export const SUMS: [string, number, number][] = [
  ['2+3', 5, 5],
  ['1+1', 2, 3],
  ['4+4', 8, 8],
];
export const scoredCallId = (i: number) => `0194f3a2-aaaa-7000-8000-${String(i + 1).padStart(12, '0')}`;

/** Publishes the judge and both monitors, writes the calls, and waits until `sums` scored them. */
export async function seedMonitors(ui: UiServer): Promise<void> {
  const judge = await publishJudge(ui.heddle, 'sum_judge', await publishModel(ui.heddle, 'judge_model', 'judge'));
  await publish(ui.heddle, 'sums', monitorValue([judge]));
  await publish(
    ui.heddle,
    'idle-monitor',
    monitorValue([judge], {
      name: 'idle-monitor',
      active: false,
      sampling_rate: 0.5,
      query: { $expr: { $eq: [{ $getField: 'inputs.question' }, { $literal: 'never' }] } },
    }),
  );
  for (const [i, [question, expected, answer]] of SUMS.entries()) {
    const id = scoredCallId(i);
    await ui.post('/call/start', {
      start: {
        project_id: PROJECT,
        id,
        trace_id: id,
        op_name: OP,
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: { question, expected },
      },
    });
    await ui.post('/call/end', {
      end: { project_id: PROJECT, id, ended_at: new Date().toISOString(), output: { answer }, summary: {} },
    });
  }
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { result } = await ui.post('/feedback/query', {
      project_id: PROJECT,
      query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.runnable.sum_judge' }] } },
    });
    if (result.length >= SUMS.length) return;
    assert.ok(Date.now() < deadline, `the monitor scored ${result.length} of ${SUMS.length} calls in 90 s`);
    await sleep(100);
  }
}
