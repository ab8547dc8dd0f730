import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sampledIn } from '../../src/domain/monitors.js';
import { opName, providerEnv, startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { startServerProcess } from '../helpers/server-process.js';
import { poster, publishJudgeMonitor, type Post } from '../helpers/process-posts.js';
import { until } from '../helpers/until.js';

/**
 * Online monitors survive a killed node (docs/monitors.md): an active monitor has a backlog of
 * calls to score against a slow judge; the process is SIGKILLed mid-backlog and started again on
 * the same SQLite data; its scan job is re-queued once the lease expires (or a new one is queued),
 * the backlog is worked off from the stored cursor and pending pairs, and every matching sampled
 * call is scored exactly once: one scorer call and one feedback each, nothing for the others.
 */

const PROJECT = 'acme/demo';
const CALLS = 80;
const RATE = 0.5;

test('a node killed with SIGKILL mid monitor backlog: after a restart every sampled call is scored once', async (t) => {
  const fake = await startFakeOpenAi(t, { delayMs: 60 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-monitor-crash-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...providerEnv(fake.baseUrl),
    HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
    HEDDLE_PROVIDER_MAX_RETRIES: '2',
    HEDDLE_JOBS_LEASE_SECONDS: '2',
    HEDDLE_JOBS_SWEEP_SECONDS: '0.25',
    HEDDLE_MONITOR_POLL_MS: '50',
    HEDDLE_MONITOR_BATCH: '25',
    HEDDLE_LOG_SUMMARY_SECONDS: '0',
  };
  const first = await startServerProcess(t, { dataDir, env });
  const key = await first.createKey('acme');
  const post = poster(first, key);

  await publishJudgeMonitor(post, PROJECT, RATE);

  const ids = Array.from({ length: CALLS }, (_, i) => `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`);
  const now = Date.now();
  await post('/call/upsert_batch', {
    batch: ids.flatMap((id, i) => [
      {
        mode: 'start',
        req: {
          start: {
            project_id: PROJECT,
            id,
            trace_id: id,
            op_name: `weave:///${PROJECT}/op/${i % 4 === 3 ? 'other' : 'solve'}:abc`,
            started_at: new Date(now + i).toISOString(),
            attributes: {},
            inputs: { question: `${i}+1`, expected: i + 1 },
          },
        },
      },
      {
        mode: 'end',
        req: {
          end: {
            project_id: PROJECT,
            id,
            ended_at: new Date(now + i + 1).toISOString(),
            output: { answer: i + 1 },
            summary: {},
          },
        },
      },
    ]),
  });
  const expected = ids.filter((id, i) => i % 4 !== 3 && sampledIn(PROJECT, 'sums', id, RATE));
  assert.ok(expected.length > 15, `sampled ${expected.length}`);

  const feedback = async (p: Post) =>
    (await p('/feedback/query', { project_id: PROJECT })).result as Array<Record<string, any>>;
  const before = await until(
    'some calls scored',
    async () => {
      const items = await feedback(post);
      return items.length >= 5 ? items : null;
    },
    30_000,
  );
  assert.ok(before.length < expected.length, 'killed mid-backlog');
  process.kill(first.pid, 'SIGKILL');
  assert.equal(await first.stop(), null, 'killed by the signal');

  const second = await startServerProcess(t, { dataDir, env });
  const again = poster(second, key);
  const done = await until(
    'the backlog to be scored',
    async () => {
      const items = await feedback(again);
      return items.length >= expected.length ? items : null;
    },
    60_000,
  );
  await sleep(1000); // nothing more arrives
  const items = await feedback(again);
  assert.equal(items.length, done.length);
  const scored = items.map((f) => String(f.weave_ref).split('/').at(-1)).sort();
  assert.deepEqual(scored, [...expected].sort(), 'each sampled matching call once, no other');
  for (const f of items) assert.deepEqual(f.payload, { output: { score: 9, pass: true } });

  const scorerCalls = (await again('/calls/stream_query', { project_id: PROJECT })).filter(
    (c: Record<string, any>) => opName(c) === 'LLMAsAJudgeScorer.score',
  );
  assert.equal(scorerCalls.length, expected.length, 'one scorer call per sampled call');
  for (const c of scorerCalls) assert.notEqual(c.ended_at, null);
  // pairs in flight at the kill were judged again; the others were not
  const judged = fake.requests.filter((r) => r.model === 'judge' && r.status === 200).length;
  assert.ok(judged >= expected.length && judged < expected.length + 5, `judge requests ${judged}`);
  await second.stop();
});
