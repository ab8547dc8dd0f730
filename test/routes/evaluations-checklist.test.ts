import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import {
  providerEnv,
  publish,
  publishDataset,
  publishEvaluation,
  publishJudge,
  publishModel,
  ROWS,
  startFakeOpenAi,
} from './evaluations-server-fixture.js';
import { until } from '../helpers/until.js';

/**
 * Checklist items 43–45 of docs/spec/evaluations.md §9, each through HTTP as a client sends it:
 * `/calls/score`, `/evaluations/status` on a call the Python client recorded, and
 * `/evaluations/evaluate_model` with what it accepts and what it refuses (§6.1, §6.3).
 */

type Json = Record<string, any>;

const status = async (h: TestApp, callId: string): Promise<Json> => {
  const res = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().status as Json;
};

const feedbackRows = async (h: TestApp): Promise<Json[]> => {
  const res = await h.post('/feedback/query', { project_id: PROJECT });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().result as Json[];
};

/** A call as the Python client writes it: start, then (unless `end` is null) end. */
async function recordCall(
  h: TestApp,
  call: { id: string; op: string; parent?: string; trace?: string; inputs?: Json },
  end: { output?: unknown; exception?: string } | null = { output: null },
): Promise<void> {
  const now = new Date().toISOString();
  const start = await h.post('/call/start', {
    start: {
      project_id: PROJECT,
      id: call.id,
      trace_id: call.trace ?? call.id,
      parent_id: call.parent ?? null,
      op_name: call.op,
      started_at: now,
      attributes: {},
      inputs: call.inputs ?? {},
    },
  });
  assert.equal(start.statusCode, 200, start.body);
  if (end === null) return;
  const ended = await h.post('/call/end', {
    end: { project_id: PROJECT, id: call.id, ended_at: now, summary: {}, ...end },
  });
  assert.equal(ended.statusCode, 200, ended.body);
}

const opRef = (name: string): string => `weave:///${PROJECT}/op/${name}:v0digest`;

test('43: /calls/score answers {} before the scoring runs; a body without scorer_refs or call_ids is 422', async (t) => {
  // every provider answer takes a second, so a reply that waited for the scorer would come after it
  const fake = await startFakeOpenAi(t, { delayMs: 1000 });
  const h = await buildTestApp(t, { ...providerEnv(fake.baseUrl), HEDDLE_PROVIDER_TIMEOUT_MS: '10000' });
  const judge = await publishJudge(h, 'judge', await publishModel(h, 'judge_model', 'openai/judge'));
  await recordCall(h, { id: 'answered', op: opRef('solve'), inputs: { expected: 4 } }, { output: { answer: 4 } });

  const res = await h.post('/calls/score', { project_id: PROJECT, call_ids: ['answered'], scorer_refs: [judge] });
  assert.deepEqual([res.statusCode, res.json()], [200, {}]);
  assert.deepEqual(await feedbackRows(h), []);
  const [feedback] = await until('the runnable feedback', async () => {
    const rows = await feedbackRows(h);
    return rows.length > 0 ? rows : null;
  });
  assert.equal(feedback!.feedback_type, 'wandb.runnable.judge');
  assert.equal(feedback!.runnable_ref, judge);

  for (const missing of ['scorer_refs', 'call_ids']) {
    const body: Json = { project_id: PROJECT, call_ids: ['answered'], scorer_refs: [judge] };
    delete body[missing];
    const bad = await h.post('/calls/score', body);
    assert.equal(bad.statusCode, 422, bad.body);
    assert.ok(
      (bad.json().detail as Json[]).some((d) => JSON.stringify(d.loc).includes(missing)),
      `${missing}: ${bad.body}`,
    );
  }
});

test('44: status of a client-recorded evaluation: not_found, 400 for other calls, running with row counts, complete, failed', async (t) => {
  const h = await buildTestApp(t);
  const dataset = await publishDataset(h, 'sums', ROWS);
  const evaluation = await publishEvaluation(h, 'sum_eval', dataset, [], 2);
  const evaluate = opRef('Evaluation.evaluate');

  assert.deepEqual(await status(h, 'never-written'), { code: 'not_found' });
  await recordCall(h, { id: 'plain', op: opRef('solve') });
  const plain = await h.post('/evaluations/status', { project_id: PROJECT, call_id: 'plain' });
  assert.deepEqual([plain.statusCode, plain.json().reason], [400, 'Call is not an evaluation']);

  // a running evaluation with one finished trial and one still running: 3 rows × 2 trials
  const inputs = { self: evaluation, model: `weave:///${PROJECT}/object/m:v0` };
  await recordCall(h, { id: 'run', op: evaluate, inputs }, null);
  const trial = (id: string) => ({ id, op: opRef('Evaluation.predict_and_score'), parent: 'run', trace: 'run' });
  await recordCall(h, trial('t1'), { output: { output: 4, scores: {}, model_latency: 0.1 } });
  await recordCall(h, trial('t2'), null);
  assert.deepEqual(await status(h, 'run'), { code: 'running', completed_rows: 1, total_rows: 6 });

  const summary = { exact: { true_count: 1, true_fraction: 1 }, model_latency: { mean: 0.1 } };
  await recordCall(h, { id: 'done', op: evaluate, inputs }, { output: summary });
  assert.deepEqual(await status(h, 'done'), { code: 'complete', output: summary });

  await recordCall(h, { id: 'broken', op: evaluate, inputs }, { exception: 'ValueError: no rows' });
  assert.deepEqual(await status(h, 'broken'), { code: 'failed', error: 'ValueError: no rows' });
});

test('45: evaluate_model runs an LLM model judged by an LLM judge to complete; other scorer or model classes are 400 with the reason', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const dataset = await publishDataset(h, 'sums', ROWS);
  const model = await publishModel(h, 'solver', 'openai/solver');
  const judge = await publishJudge(h, 'sum_judge', await publishModel(h, 'judge_model', 'judge'));
  const evaluation = await publishEvaluation(h, 'sum_eval', dataset, [judge]);

  const res = await h.post('/evaluations/evaluate_model', {
    project_id: PROJECT,
    evaluation_ref: evaluation,
    model_ref: model,
  });
  assert.equal(res.statusCode, 200, res.body);
  const callId = res.json().call_id as string;
  const done = await until('complete', async () => {
    const s = await status(h, callId);
    assert.notEqual(s.code, 'failed', JSON.stringify(s));
    return s.code === 'complete' ? s : null;
  });
  // the judge's name is `correctness` (publishJudge), its object id `sum_judge`
  assert.deepEqual(Object.keys(done.output), ['output', 'correctness', 'model_latency']);

  // what the server cannot run is refused before anything is enqueued (§6.1, §6.3)
  const codeModel = await publish(h, 'calculator', {
    _type: 'Calculator',
    _class_name: 'Calculator',
    _bases: ['Model', 'Object', 'BaseModel'],
    name: null,
    description: null,
    answers: {},
  });
  const classScorer = await publish(h, 'exact_match', {
    _type: 'ExactMatch',
    _class_name: 'ExactMatch',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'exact_match',
    column_map: null,
  });
  const v2 = await h.post(`/v2/${PROJECT}/scorers`, {
    name: 'Length Check',
    op_source_code: 'def score(output):\n    return len(output) > 0\n',
  });
  assert.equal(v2.statusCode, 200, v2.body);
  const v2Model = await h.post(`/v2/${PROJECT}/models`, {
    name: 'Code Model',
    source_code: 'import weave\nclass M(weave.Model):\n    pass\n',
  });
  assert.equal(v2Model.statusCode, 200, v2Model.body);
  const opScorer = opRef('exact');
  const cases: Array<[string, string, string, RegExp]> = [
    [
      'a class scorer',
      await publishEvaluation(h, 'e1', dataset, [judge, classScorer]),
      model,
      /exact_match is a ExactMatch; the server only runs LLMAsAJudgeScorer/,
    ],
    [
      'a v2 scorer',
      await publishEvaluation(h, 'e2', dataset, [v2.json().scorer]),
      model,
      /only runs LLMAsAJudgeScorer/,
    ],
    ['an op scorer', await publishEvaluation(h, 'e3', dataset, [opScorer]), model, /must be an object ref/],
    ['a code-defined model', evaluation, codeModel, /must be an LLMStructuredCompletionModel \(got Calculator\)/],
    ['a v2 model', evaluation, v2Model.json().model_ref, /must be an LLMStructuredCompletionModel/],
    [
      'a judge whose model is code',
      await publishEvaluation(h, 'e4', dataset, [await publishJudge(h, 'bad_judge', codeModel)]),
      model,
      /must be an LLMStructuredCompletionModel \(got Calculator\)/,
    ],
  ];
  const before = (await h.post('/calls/stream_query', { project_id: PROJECT })).body;
  for (const [what, evaluationRef, modelRef, reason] of cases) {
    const refused = await h.post('/evaluations/evaluate_model', {
      project_id: PROJECT,
      evaluation_ref: evaluationRef,
      model_ref: modelRef,
    });
    assert.equal(refused.statusCode, 400, `${what}: ${refused.body}`);
    assert.match(refused.json().reason, reason, what);
  }
  await sleep(100);
  assert.equal((await h.post('/calls/stream_query', { project_id: PROJECT })).body, before, 'nothing ran');
});
