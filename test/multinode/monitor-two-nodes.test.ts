import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sampledIn } from '../../src/domain/monitors.js';
import { testDatabase } from '../helpers/postgres.js';
import { startServerProcess } from '../helpers/server-process.js';
import { opName, providerEnv, startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { poster, publishJudgeMonitor } from '../helpers/process-posts.js';

/**
 * An online monitor on two nodes sharing one PostgreSQL database (docs/monitors.md): both nodes
 * poll, both run scan jobs, calls arrive through either; every sampled matching call is scored
 * exactly once (one scorer call, one feedback), whichever node's poll or runner got to it.
 */

const PROJECT = 'acme/demo';
const CALLS = 60;
const RATE = 0.5;

test(
  'two nodes on one PostgreSQL database score each sampled call of a monitor once',
  { timeout: 240_000 },
  async (t) => {
    const fake = await startFakeOpenAi(t, { delayMs: 20 });
    const url = await testDatabase(t);
    if (url === null) return;
    const env = {
      ...providerEnv(fake.baseUrl),
      HEDDLE_PROVIDER_MAX_RETRIES: '2',
      HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
      HEDDLE_DATABASE_URL: url,
      HEDDLE_ADMIN_KEY: randomBytes(24).toString('hex'),
      HEDDLE_JOBS_CONCURRENCY: '2',
      HEDDLE_MONITOR_POLL_MS: '20',
      HEDDLE_MONITOR_BATCH: '7',
      HEDDLE_MONITOR_SCAN_SECONDS: '0.2',
    };
    const [serverA, serverB] = await Promise.all([startServerProcess(t, { env }), startServerProcess(t, { env })]);
    const key = await serverA.createKey('acme', { user: 'alice' });
    const [a, b] = [poster(serverA, key), poster(serverB, key)];

    await publishJudgeMonitor(a, PROJECT, RATE, b);

    const ids = Array.from({ length: CALLS }, (_, i) => `0190b000-0000-7000-8000-${String(i).padStart(12, '0')}`);
    await Promise.all(
      ids.map(async (id, i) => {
        const post = i % 2 === 0 ? a : b;
        const now = new Date().toISOString();
        await post('/call/start', {
          start: {
            project_id: PROJECT,
            id,
            trace_id: id,
            op_name: `weave:///${PROJECT}/op/solve:abc`,
            started_at: now,
            attributes: {},
            inputs: { question: `${i}+1`, expected: i + 1 },
          },
        });
        await (i % 3 === 0 ? a : b)('/call/end', {
          end: { project_id: PROJECT, id, ended_at: new Date().toISOString(), output: { answer: i + 1 }, summary: {} },
        });
      }),
    );
    const expected = ids.filter((id) => sampledIn(PROJECT, 'sums', id, RATE)).sort();
    assert.ok(expected.length > 10, `sampled ${expected.length}`);

    const deadline = Date.now() + 60_000;
    let items: Array<Record<string, any>> = [];
    while (items.length < expected.length) {
      assert.ok(Date.now() < deadline, `scored ${items.length} of ${expected.length}`);
      await sleep(100);
      items = (await b('/feedback/query', { project_id: PROJECT })).result;
    }
    await sleep(1000); // nothing more arrives
    items = (await a('/feedback/query', { project_id: PROJECT })).result;
    assert.deepEqual(items.map((f) => String(f.weave_ref).split('/').at(-1)).sort(), expected);
    const scorerCalls = (await a('/calls/stream_query', { project_id: PROJECT })).filter(
      (c: Record<string, any>) => opName(c) === 'LLMAsAJudgeScorer.score',
    );
    assert.equal(scorerCalls.length, expected.length);
    const judged = fake.requests.filter((r) => r.model === 'judge' && r.status === 200).length;
    assert.equal(judged, expected.length, 'each pair judged once');
  },
);
