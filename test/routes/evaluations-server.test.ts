import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../src/domain/ids.js';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import {
  alice,
  AnsweringTrainer,
  ENV_KEY,
  OBJECT_SECRET,
  opName,
  providerEnv,
  publish,
  publishDataset,
  publishEvaluation,
  publishJudge,
  publishModel,
  ROWS,
  startFakeOpenAi,
  traceCalls,
} from './evaluations-server-fixture.js';

/** Server-side evaluation (docs/spec/evaluations.md §6.2–§6.4): the run, its call tree, status and results. */

const status = async (h: TestApp, callId: string) => {
  const res = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().status as Record<string, unknown>;
};

test('an LLMStructuredCompletionModel judged by an LLMAsAJudgeScorer writes the SDK call tree, summary, feedback and status', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const dataset = await publishDataset(h, 'sums', ROWS);
  const model = await publishModel(h, 'solver', 'openai/solver');
  const judgeModel = await publishModel(h, 'judge_model', 'judge', [{ role: 'system', content: 'Judge strictly.' }]);
  const scorer = await publishJudge(h, 'sum_judge', judgeModel);
  const evaluation = await publishEvaluation(h, 'sum_eval', dataset, [scorer]);
  const callId = uuidv7();
  assert.deepEqual(await status(h, callId), { code: 'not_found' });

  const midway: Array<Record<string, unknown>> = [];
  const caller = await alice(h);
  const summary = await h.app.services.evaluations.server.runServerEvaluation({
    caller,
    projectId: PROJECT,
    callId,
    evaluationRef: evaluation,
    modelRef: model,
    onProgress: async (p) => {
      const s = await status(h, callId);
      midway.push(s);
      assert.equal(s.code, 'running');
      // other trials may have ended since (bounded parallelism)
      assert.ok((s.completed_rows as number) >= p.completed_rows);
      assert.equal(s.total_rows, 3);
    },
  });
  assert.equal(midway.length, 3);

  // §6.2 summary: output recursed into dicts, the judge's number and boolean, latency
  assert.deepEqual(Object.keys(summary), ['output', 'correctness', 'model_latency']);
  assert.deepEqual(summary.output, { answer: { mean: 5 } });
  assert.deepEqual(summary.correctness, {
    score: { mean: 19 / 3 },
    pass: { true_count: 2, true_fraction: 2 / 3 },
  });
  assert.equal(typeof (summary.model_latency as { mean: number }).mean, 'number');
  assert.deepEqual(await status(h, callId), { code: 'complete', output: summary });

  const calls = await traceCalls(h, callId);
  const root = calls.find((c) => c.id === callId)!;
  assert.equal(opName(root), 'Evaluation.evaluate');
  assert.deepEqual([root.trace_id, root.parent_id], [callId, null]);
  assert.deepEqual(root.inputs, { self: evaluation, model });
  assert.match(root.display_name, /^eval-\d{4}-\d\d-\d\d-[a-z]+-[a-z]+$/);
  assert.deepEqual(root.output, summary);
  assert.deepEqual(root.summary.status_counts, { success: calls.length, error: 0 });
  for (const call of calls) assert.deepEqual(call.attributes._weave_eval_meta, { evaluate_model_worker: true });

  const children = calls.filter((c) => c.parent_id === callId);
  assert.deepEqual(children.map(opName).sort(), [
    'Evaluation.predict_and_score',
    'Evaluation.predict_and_score',
    'Evaluation.predict_and_score',
    'Evaluation.summarize',
  ]);
  const trials = children.filter((c) => opName(c) === 'Evaluation.predict_and_score');
  for (const trial of trials) {
    assert.match(trial.inputs.example, new RegExp(`^${dataset}/attr/rows/id/[A-Za-z0-9_-]+$`));
    const [predict, score] = ['LLMStructuredCompletionModel.predict', 'LLMAsAJudgeScorer.score'].map((name) =>
      calls.filter((c) => c.parent_id === trial.id && opName(c) === name),
    );
    assert.equal(predict!.length, 1);
    assert.equal(score!.length, 1);
    const completion = calls.filter((c) => c.parent_id === predict![0]!.id);
    assert.deepEqual(completion.map(opName), ['weave.completions_create']);
    assert.equal(completion[0]!.summary.usage.solver.total_tokens, 15);
    assert.equal(predict![0]!.summary.usage.solver.total_tokens, 15);
    assert.deepEqual(trial.output.output, predict![0]!.output);
    assert.deepEqual(trial.output.scores, { correctness: score![0]!.output });
    assert.equal(typeof trial.output.model_latency, 'number');
    // the judge: a predict of the judge model under the scorer call, its completion under that
    const judge = calls.filter((c) => c.parent_id === score![0]!.id);
    assert.deepEqual(judge.map(opName), ['LLMStructuredCompletionModel.predict']);
    assert.equal(judge[0]!.inputs.user_input[0].role, 'user');
    assert.match(judge[0]!.inputs.user_input[0].content, /^Expected \d+; got \{"answer":\d+\}$/);
  }
  // the solver's request: template filled, {{ }} literal, json mode, params passed
  const solverRequest = fake.requests.find((r) => r.model === 'solver')!;
  assert.equal(solverRequest.body.messages[0].content, 'You add numbers. Answer {"answer": n}.');
  assert.match(solverRequest.body.messages[1].content, /^What is \d\+\d\?$/);
  assert.deepEqual(solverRequest.body.response_format, { type: 'json_object' });
  assert.equal(solverRequest.body.temperature, 0);
  assert.equal(solverRequest.authorization, `Bearer ${ENV_KEY}`);
  // the judge's first request got a 429 and was retried
  assert.deepEqual(
    fake.requests.filter((r) => r.model === 'judge').map((r) => r.status),
    [429, 200, 200, 200],
  );

  // runnable feedback on each predict call
  const feedback = await h.post('/feedback/query', { project_id: PROJECT });
  const items = feedback.json().result as Array<Record<string, any>>;
  assert.equal(items.length, 3);
  for (const item of items) {
    assert.equal(item.feedback_type, 'wandb.runnable.sum_judge');
    assert.equal(item.runnable_ref, scorer);
    assert.match(item.call_ref, /\/call\//);
  }

  // eval_results reads the run back like a client-side one
  const results = await h.post(`/v2/${PROJECT}/eval_results/query`, {
    evaluation_call_ids: [callId],
    include_summary: true,
  });
  assert.equal(results.statusCode, 200, results.body);
  const body = results.json();
  assert.equal(body.total_rows, 3);
  const stats = body.summary.evaluations[0].scorer_stats as Array<Record<string, any>>;
  const pass = stats.find((s) => s.path === 'pass')!;
  assert.deepEqual([pass.value_type, pass.pass_true_count, pass.trial_count], ['binary', 2, 3]);
  assert.equal(body.summary.evaluations[0].predict_total_tokens, 45);

  // running it again with the same id changes nothing
  const again = await h.app.services.evaluations.server.runServerEvaluation({
    caller,
    projectId: PROJECT,
    callId,
    evaluationRef: evaluation,
    modelRef: model,
  });
  assert.deepEqual(again, summary);
  assert.equal((await traceCalls(h, callId)).length, calls.length);
  assert.ok(!JSON.stringify(calls).includes(ENV_KEY));
});

test('provider errors (timeout, 4xx echoing the key, missing secret) fail their rows only; no secret leaks; the heddle/ provider answers in process', async (t) => {
  const fake = await startFakeOpenAi(t);
  const logs: string[] = [];
  const h = await buildTestApp(t, providerEnv(fake.baseUrl), {
    trainer: new AnsweringTrainer(),
    logger: { level: 'trace', stream: { write: (line: string) => logs.push(line) } },
  });
  for (const name of ['solverbot', 'judgebot']) {
    const res = await h.post('/v1/preview/models', { project: 'demo', name, base_model: 'heddle/byte-decoder' });
    assert.equal(res.statusCode, 200, res.body);
  }
  const provider = await publish(
    h,
    'my_provider',
    { base_url: fake.baseUrl, api_key_name: 'MY_KEY', extra_headers: { 'x-team': 'evals' }, return_type: 'openai' },
    'Provider',
  );
  const boom = await publish(h, 'boom_model', { provider, name: 'boom', max_tokens: 64 }, 'ProviderModel');
  const unset = await publish(
    h,
    'unset_provider',
    { base_url: fake.baseUrl, api_key_name: 'NOT_SET', extra_headers: {}, return_type: 'openai' },
    'Provider',
  );
  const judge = await publishJudge(h, 'bot_judge', await publishModel(h, 'judge_bot', 'heddle/judgebot'));
  const dataset = await publishDataset(h, 'sums', ROWS.slice(0, 1));
  const evaluation = await publishEvaluation(h, 'bot_eval', dataset, [judge]);
  const caller = await alice(h);
  const run = async (llmModelId: string) => {
    const callId = uuidv7();
    const model = await publishModel(h, `m_${llmModelId.replace(/\W/g, '_')}`, llmModelId);
    const summary = await h.app.services.evaluations.server.runServerEvaluation({
      caller,
      projectId: PROJECT,
      callId,
      evaluationRef: evaluation,
      modelRef: model,
    });
    return { summary, calls: await traceCalls(h, callId), callId };
  };

  const heddle = await run('heddle/solverbot');
  assert.deepEqual(heddle.summary.output, { answer: { mean: 5 } });
  assert.deepEqual(heddle.summary.correctness, { score: { mean: 9 }, pass: { true_count: 1, true_fraction: 1 } });
  assert.equal(fake.requests.length, 0, 'the heddle provider never leaves the process');

  const failures: Record<string, RegExp> = {
    'openai/hang': /timed out after 300 ms/,
    [boom]: /answered 400: bad request from Bearer \[redacted\]/,
    'unset_provider/m': /secret NOT_SET is not set \(server variable HEDDLE_SECRET_NOT_SET\)/,
    'nobody/m': /Unknown provider "nobody"/,
  };
  void unset;
  for (const [id, message] of Object.entries(failures)) {
    const { summary, calls, callId } = await run(id);
    // a failing model: output null, no scores, the run completes with descendant_error (§6.2 step 3)
    // every judge result missing: the scorer key is kept with null (§6.2)
    assert.deepEqual(summary, { correctness: null, model_latency: summary.model_latency }, id);
    const predict = calls.find((c) => opName(c) === 'LLMStructuredCompletionModel.predict')!;
    assert.match(predict.exception, message, id);
    const trial = calls.find((c) => opName(c) === 'Evaluation.predict_and_score')!;
    assert.deepEqual(trial.output.scores, {});
    assert.equal(trial.output.output, null);
    const root = calls.find((c) => c.id === callId)!;
    assert.equal(root.summary.weave.status, 'descendant_error', id);
    assert.ok(root.summary.status_counts.error >= 1);
  }
  const boomRequests = fake.requests.filter((r) => r.model === 'boom');
  assert.equal(boomRequests.length, 1, 'a 400 is not retried');
  assert.equal(boomRequests[0]!.authorization, `Bearer ${OBJECT_SECRET}`);
  assert.equal(boomRequests[0]!.body.max_tokens, 64, 'ProviderModel.max_tokens');
  assert.equal(fake.requests.filter((r) => r.model === 'hang').length, 2, 'a timeout is retried once');

  // no secret in any call, feedback or object the API returns
  const everything = await Promise.all([
    h.post('/calls/stream_query', { project_id: PROJECT }),
    h.post('/feedback/query', { project_id: PROJECT }),
    h.post('/objs/query', { project_id: PROJECT }),
  ]);
  for (const res of everything) {
    assert.equal(res.statusCode, 200, res.body);
    for (const secret of [ENV_KEY, OBJECT_SECRET]) assert.ok(!res.body.includes(secret), 'secret leaked');
  }
  assert.ok(logs.length > 0, 'the requests were logged');
  for (const secret of [ENV_KEY, OBJECT_SECRET]) assert.ok(!logs.join('').includes(secret), 'secret in a log line');
});
