import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { opName, providerEnv, startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { startServerProcess } from '../helpers/server-process.js';
import { poster, publish as publishObject, type Post } from '../helpers/process-posts.js';
import { until } from '../helpers/until.js';

/**
 * The background job queue survives a killed node (docs/architecture.md, "Background jobs"): a
 * server-side evaluation runs in a real server process against a slow OpenAI-compatible fake; the
 * process is SIGKILLed mid-run and started again on the same SQLite data; the sweeper re-queues the
 * job once its lease expires, the resumed run finishes, and every row is scored exactly once.
 */

const PROJECT = 'acme/demo';
const ROWS = 40;

/** Publishes an object of this test's project. */
const publish = (post: Post, name: string, val: Record<string, unknown>, builtin?: string): Promise<string> =>
  publishObject(post, PROJECT, name, val, builtin);

const model = (post: Post, name: string, llmModelId: string) =>
  publish(
    post,
    name,
    {
      llm_model_id: llmModelId,
      default_params: {
        messages_template: [{ role: 'user', content: 'What is {question}?' }],
        response_format: 'json_object',
      },
    },
    'LLMStructuredCompletionModel',
  );

test('a server-side evaluation killed mid-run with SIGKILL completes after a restart, each row scored once', async (t) => {
  const fake = await startFakeOpenAi(t, { delayMs: 150 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-crash-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...providerEnv(fake.baseUrl),
    HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
    HEDDLE_JOBS_LEASE_SECONDS: '2',
    HEDDLE_JOBS_SWEEP_SECONDS: '0.25',
    HEDDLE_LOG_SUMMARY_SECONDS: '0',
  };
  const first = await startServerProcess(t, { dataDir, env });
  const key = await first.createKey('acme');
  const post = poster(first, key);

  const rows = Array.from({ length: ROWS }, (_, i) => ({ question: `${i}+1`, expected: i + 1 }));
  const table = await post('/table/create', { table: { project_id: PROJECT, rows } });
  const dataset = await publish(post, 'sums', {
    _type: 'Dataset',
    _class_name: 'Dataset',
    _bases: ['Object', 'BaseModel'],
    name: 'sums',
    rows: `weave:///${PROJECT}/table/${table.digest}`,
  });
  const solver = await model(post, 'solver', 'openai/solver');
  const judge = await publish(post, 'judge', {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'correctness',
    model: await model(post, 'judge_model', 'judge'),
    scoring_prompt: 'Expected {expected}; got {output}',
  });
  const evaluation = await publish(post, 'sum_eval', {
    _type: 'Evaluation',
    _class_name: 'Evaluation',
    _bases: ['Object', 'BaseModel'],
    name: 'sum_eval',
    dataset,
    scorers: [judge],
    trials: 1,
  });

  const { call_id: callId } = await post('/evaluations/evaluate_model', {
    project_id: PROJECT,
    evaluation_ref: evaluation,
    model_ref: solver,
  });
  const status = async (p: Post) => (await p('/evaluations/status', { project_id: PROJECT, call_id: callId })).status;
  const before = await until(
    'some rows done',
    async () => {
      const s = await status(post);
      return s.code === 'running' && s.completed_rows >= 5 ? s : null;
    },
    30_000,
  );
  assert.ok(before.completed_rows < ROWS, 'killed mid-run');
  process.kill(first.pid, 'SIGKILL');
  assert.equal(await first.stop(), null, 'killed by the signal');

  const second = await startServerProcess(t, { dataDir, env });
  const again = poster(second, key);
  const resumed = await status(again);
  assert.equal(resumed.code, 'running');
  assert.ok(resumed.completed_rows >= before.completed_rows, 'finished rows stay finished');
  assert.equal(resumed.total_rows, ROWS);
  const done = await until(
    'the run to complete',
    async () => {
      const s = await status(again);
      assert.notEqual(s.code, 'failed', JSON.stringify(s));
      return s.code === 'complete' ? s : null;
    },
    60_000,
  );
  assert.deepEqual(done.output.correctness.pass, { true_count: ROWS, true_fraction: 1 });

  const calls: Array<Record<string, any>> = await again('/calls/stream_query', {
    project_id: PROJECT,
    filter: { trace_ids: [callId] },
  });
  const trials = calls.filter((c) => c.parent_id === callId && opName(c) === 'Evaluation.predict_and_score');
  assert.equal(trials.length, ROWS);
  assert.equal(new Set(trials.map((c) => c.inputs.example)).size, ROWS, 'one trial per row');
  for (const trial of trials) {
    assert.notEqual(trial.ended_at, null);
    const under = (name: string) => calls.filter((c) => c.parent_id === trial.id && opName(c) === name);
    assert.equal(under('LLMStructuredCompletionModel.predict').length, 1);
    assert.equal(under('LLMAsAJudgeScorer.score').length, 1);
  }
  const feedback = (await again('/feedback/query', { project_id: PROJECT })).result as Array<Record<string, any>>;
  assert.equal(feedback.length, ROWS, 'one feedback per row');
  assert.equal(new Set(feedback.map((f) => f.weave_ref)).size, ROWS);
  const predicts = new Set(
    calls
      .filter((c) => opName(c) === 'LLMStructuredCompletionModel.predict')
      .map((c) => `weave:///${PROJECT}/call/${c.id}`),
  );
  for (const f of feedback) assert.ok(predicts.has(f.weave_ref), 'feedback on a predict call of the run');
  // rows in flight at the kill were asked again; the others were not
  const solverRequests = fake.requests.filter((r) => r.model === 'solver').length;
  assert.ok(solverRequests >= ROWS && solverRequests < ROWS + 10, `solver requests ${solverRequests}`);
  await second.stop();
});
