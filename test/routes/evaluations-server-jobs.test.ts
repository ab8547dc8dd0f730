import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import {
  opName,
  providerEnv,
  publishDataset,
  publishEvaluation,
  publishJudge,
  publishModel,
  ROWS,
  startFakeOpenAi,
  traceCalls,
} from './evaluations-server-fixture.js';
import { until } from '../helpers/until.js';

/**
 * `/evaluations/evaluate_model` and `/calls/score` (docs/spec/evaluations.md §5, §6.1) end to end
 * through the background job queue: checks before enqueueing, the answer at once, the work done by
 * this node's job runner.
 */

const status = async (h: TestApp, callId: string): Promise<Record<string, any>> => {
  const res = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().status as Record<string, any>;
};

test('evaluate_model answers a call id at once; status goes running → complete as the job runs', async (t) => {
  const fake = await startFakeOpenAi(t, { delayMs: 100 });
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const dataset = await publishDataset(h, 'sums', ROWS);
  const model = await publishModel(h, 'solver', 'openai/solver');
  const judge = await publishJudge(h, 'sum_judge', await publishModel(h, 'judge_model', 'judge'));
  const evaluation = await publishEvaluation(h, 'sum_eval', dataset, [judge]);

  const res = await h.post('/evaluations/evaluate_model', {
    project_id: PROJECT,
    evaluation_ref: evaluation,
    model_ref: model,
    wb_user_id: null,
  });
  assert.equal(res.statusCode, 200, res.body);
  const callId = res.json().call_id as string;
  assert.match(callId, /^[0-9a-f-]{36}$/);

  const running = await until('running', async () => {
    const s = await status(h, callId);
    return s.code === 'running' ? s : null;
  });
  assert.equal(running.total_rows, 3);
  assert.ok(running.completed_rows >= 0 && running.completed_rows <= 3);
  const seen = new Set<number>();
  const done = await until('complete', async () => {
    const s = await status(h, callId);
    if (s.code === 'running') {
      assert.equal(s.total_rows, 3);
      assert.ok(s.completed_rows <= 3, `completed_rows ${s.completed_rows}`);
      seen.add(s.completed_rows);
    }
    return s.code === 'complete' ? s : null;
  });
  assert.deepEqual(done.output.output, { answer: { mean: 5 } });
  assert.ok(seen.size >= 1);
  const calls = await traceCalls(h, callId);
  assert.equal(calls.filter((c) => opName(c) === 'Evaluation.predict_and_score').length, 3);
  assert.equal(calls.find((c) => c.id === callId)?.wb_user_id !== undefined, true);
});

test('evaluate_model checks before enqueueing: unknown fields 422, bad refs 400, missing objects 404', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const model = await publishModel(h, 'solver', 'openai/solver');
  const body = { project_id: PROJECT, evaluation_ref: model, model_ref: model };
  const extra = await h.post('/evaluations/evaluate_model', { ...body, other: 1 });
  assert.equal(extra.statusCode, 422);
  const notEval = await h.post('/evaluations/evaluate_model', body);
  assert.deepEqual([notEval.statusCode, notEval.json().reason], [400, `${model} is not an Evaluation`]);
  const missing = await h.post('/evaluations/evaluate_model', {
    ...body,
    evaluation_ref: `weave:///${PROJECT}/object/gone:latest`,
  });
  assert.equal(missing.statusCode, 404);
  const unparsable = await h.post('/evaluations/evaluate_model', { ...body, evaluation_ref: 'nope' });
  assert.equal(unparsable.statusCode, 400);
});

test('/calls/score answers {} at once and the job leaves runnable feedback on the call; empty lists are a no-op', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const judge = await publishJudge(h, 'judge', await publishModel(h, 'judge_model', 'openai/judge'));
  const now = new Date().toISOString();
  const ids = Array.from({ length: 3 }, (_, i) => `c${i}`);
  const batch = ids.flatMap((id) => [
    {
      mode: 'start',
      req: {
        start: {
          project_id: PROJECT,
          id,
          op_name: 'solve',
          started_at: now,
          attributes: {},
          inputs: { expected: 5 },
        },
      },
    },
    { mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: now, output: { answer: 5 }, summary: {} } } },
  ]);
  assert.equal((await h.post('/call/upsert_batch', { batch })).statusCode, 200);

  for (const empty of [
    { project_id: PROJECT, call_ids: [], scorer_refs: [judge] },
    { project_id: PROJECT, call_ids: ids, scorer_refs: [] },
  ]) {
    const res = await h.post('/calls/score', empty);
    assert.deepEqual([res.statusCode, res.json()], [200, {}]);
  }
  const bad = await h.post('/calls/score', { project_id: PROJECT, call_ids: ids, scorer_refs: ['nope'] });
  assert.equal(bad.statusCode, 400);

  const res = await h.post('/calls/score', {
    project_id: PROJECT,
    call_ids: ids,
    scorer_refs: [judge],
    wb_user_id: 'x',
  });
  assert.deepEqual([res.statusCode, res.json()], [200, {}]);
  const feedback = await until('feedback', async () => {
    const rows = (await h.post('/feedback/query', { project_id: PROJECT })).json().result as Array<Record<string, any>>;
    return rows.length === ids.length ? rows : null;
  });
  assert.deepEqual(
    feedback.map((f) => f.feedback_type),
    ids.map(() => 'wandb.runnable.judge'),
  );
  assert.deepEqual(feedback.map((f) => String(f.weave_ref).split('/').at(-1)).sort(), ids);
  for (const f of feedback) assert.deepEqual(f.payload, { output: { score: 9, pass: true } });
});
