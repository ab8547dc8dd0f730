import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../src/domain/ids.js';
import { derivedCallId } from '../../src/domain/server-eval/call-ids.js';
import { InvalidRequestError, NotFoundError } from '../../src/errors/app-error.js';
import { buildTestApp, PROJECT } from '../helpers/app.js';
import {
  alice,
  opName,
  providerEnv,
  publish,
  publishDataset,
  publishEvaluation,
  publishJudge,
  publishModel,
  startFakeOpenAi,
  traceCalls,
} from './evaluations-server-fixture.js';

/** Resuming a crashed run, `/calls/score` jobs, and the checks made before enqueueing (docs/spec/evaluations.md §5, §6.1). */

const ROWS = [1, 2, 3, 4].map((n) => ({ question: `${n}+${n}`, expected: 2 * n }));

test('a run that crashed after some trials resumes: every row × trial is predicted and scored exactly once', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const server = h.app.services.evaluations.server;
  const dataset = await publishDataset(h, 'sums', ROWS);
  const scorer = await publishJudge(h, 'judge', await publishModel(h, 'judge_model', 'openai/judge'));
  const evaluation = await publishEvaluation(h, 'twice', dataset, [scorer], 2);
  const model = await publishModel(h, 'solver', 'openai/solver');
  const caller = await alice(h);
  const callId = uuidv7();
  const args = { caller, projectId: PROJECT, callId, evaluationRef: evaluation, modelRef: model };

  await assert.rejects(
    server.runServerEvaluation({
      ...args,
      onProgress: (p) => {
        if (p.completed_rows === 3) throw new Error('simulated crash');
      },
    }),
    /simulated crash/,
  );
  const crashed = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  const running = crashed.json().status;
  assert.equal(running.code, 'running');
  assert.equal(running.total_rows, 8, 'rows × trials');
  assert.ok(running.completed_rows >= 3 && running.completed_rows < 8, JSON.stringify(running));
  const before = fake.requests.filter((r) => r.model === 'solver').length;
  // a harder crash: the process died inside a trial, after its predict_and_score and predict started
  const ended = new Set((await traceCalls(h, callId)).filter((c) => c.ended_at !== null).map((c) => c.id));
  const dangling = [0, 1, 2, 3].flatMap((i) => [0, 1].map((k) => derivedCallId(callId, 'predict_and_score', i, k)));
  const torn = dangling.find((id) => !ended.has(id))!;
  for (const [id, parent] of [
    [torn, callId],
    [derivedCallId(torn, 'predict'), torn],
  ]) {
    const res = await h.post('/call/start', {
      start: {
        project_id: PROJECT,
        id,
        trace_id: callId,
        parent_id: parent,
        op_name: 'x',
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: {},
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  }

  // an aborted job (lease lost) starts no further trial
  await assert.rejects(server.runServerEvaluation({ ...args, signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(fake.requests.filter((r) => r.model === 'solver').length, before);

  const summary = await server.runServerEvaluation(args);
  assert.deepEqual(summary.output, { answer: { mean: 5 } });
  assert.deepEqual(summary.correctness, { score: { mean: 9 }, pass: { true_count: 8, true_fraction: 1 } });
  const calls = await traceCalls(h, callId);
  const count = (name: string) => calls.filter((c) => opName(c) === name).length;
  assert.equal(count('Evaluation.evaluate'), 1);
  assert.equal(count('Evaluation.predict_and_score'), 8);
  assert.equal(count('LLMAsAJudgeScorer.score'), 8);
  assert.equal(count('LLMStructuredCompletionModel.predict'), 16, '8 model predicts + 8 judge predicts');
  assert.equal(count('weave.completions_create'), 16);
  assert.equal(count('Evaluation.summarize'), 1);
  assert.ok(calls.every((c) => c.ended_at !== null && c.exception === null));
  // finished trials were not asked again
  assert.equal(before + (8 - running.completed_rows), fake.requests.filter((r) => r.model === 'solver').length);
  const feedback = await h.post('/feedback/query', { project_id: PROJECT });
  assert.equal(feedback.json().result.length, 8, 'one runnable feedback per trial');
  const examples = calls.filter((c) => opName(c) === 'Evaluation.predict_and_score').map((c) => c.inputs.example);
  assert.equal(new Set(examples).size, 4);
  const status = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.deepEqual(status.json(), { status: { code: 'complete', output: summary } });
});

test('a job that fails before the root exists records it failed; status reports the error; non-evaluations are 400', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const caller = await alice(h);
  const callId = uuidv7();
  const evaluationRef = `weave:///${PROJECT}/object/nothing:latest`;
  await assert.rejects(
    h.app.services.evaluations.server.runServerEvaluation({
      caller,
      projectId: PROJECT,
      callId,
      evaluationRef,
      modelRef: evaluationRef,
    }),
    NotFoundError,
  );
  const res = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.equal(res.json().status.code, 'failed');
  assert.match(res.json().status.error, /not found/);
  await h.post('/call/start', {
    start: {
      project_id: PROJECT,
      id: 'plain',
      op_name: 'my_op',
      started_at: new Date().toISOString(),
      attributes: {},
      inputs: {},
    },
  });
  const plain = await h.post('/evaluations/status', { project_id: PROJECT, call_id: 'plain' });
  assert.deepEqual([plain.statusCode, plain.json().reason], [400, 'Call is not an evaluation']);
  const extra = await h.post('/evaluations/status', { project_id: PROJECT, call_id: 'plain', other: 1 });
  assert.equal(extra.statusCode, 422);
});

test('validation before enqueueing: unsupported classes, foreign and unparseable refs answer with the reason', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const server = h.app.services.evaluations.server;
  const caller = await alice(h);
  const dataset = await publishDataset(h, 'sums', ROWS);
  const model = await publishModel(h, 'solver', 'openai/solver');
  const judge = await publishJudge(h, 'judge', model);
  const opScorer = await publish(h, 'exact', { _type: 'Scorer', _class_name: 'Scorer', _bases: ['Object'], name: 'x' });
  const codeModel = await publish(h, 'mine', { _type: 'MyModel', _class_name: 'MyModel', _bases: ['Model', 'Object'] });
  const good = await publishEvaluation(h, 'good', dataset, [judge]);
  const bad = await publishEvaluation(h, 'bad', dataset, [judge, opScorer]);
  await server.validateEvaluateModel(caller, PROJECT, good, model);
  const cases: Array<[string, string, RegExp, typeof InvalidRequestError | typeof NotFoundError]> = [
    [bad, model, /only runs LLMAsAJudgeScorer/, InvalidRequestError],
    [good, codeModel, /must be an LLMStructuredCompletionModel \(got MyModel\)/, InvalidRequestError],
    [model, model, /is not an Evaluation/, InvalidRequestError],
    ['not a ref', model, /evaluation_ref: Invalid URI/, InvalidRequestError],
    [good.replace('acme/demo', 'other/demo'), model, /must belong to project acme\/demo/, InvalidRequestError],
    [`weave:///${PROJECT}/object/gone:latest`, model, /not found/, NotFoundError],
  ];
  for (const [evaluationRef, modelRef, message, type] of cases) {
    await assert.rejects(server.validateEvaluateModel(caller, PROJECT, evaluationRef, modelRef), (error: Error) => {
      assert.ok(error instanceof type, `${evaluationRef}: ${error.message}`);
      assert.match(error.message, message);
      return true;
    });
  }
  await assert.rejects(server.validateScoreCalls(caller, PROJECT, ['nope']), InvalidRequestError);
  await server.validateScoreCalls(caller, PROJECT, [judge, opScorer]);
});

test('scoreCalls scores each (call, scorer) pair once, as its own trace with runnable feedback on the call', async (t) => {
  const fake = await startFakeOpenAi(t);
  const h = await buildTestApp(t, providerEnv(fake.baseUrl));
  const caller = await alice(h);
  const judge = await publishJudge(h, 'judge', await publishModel(h, 'judge_model', 'openai/judge'));
  const notJudge = await publish(h, 'exact', { _type: 'Scorer', _class_name: 'Scorer', _bases: ['Object'], name: 'x' });
  const now = new Date().toISOString();
  await h.post('/call/upsert_batch', {
    batch: [
      {
        mode: 'start',
        req: {
          start: {
            project_id: PROJECT,
            id: 'c1',
            op_name: 'solve',
            started_at: now,
            attributes: {},
            inputs: { self: 'x', expected: 5 },
          },
        },
      },
      {
        mode: 'end',
        req: { end: { project_id: PROJECT, id: 'c1', ended_at: now, output: { answer: 5 }, summary: {} } },
      },
    ],
  });
  const args = { caller, projectId: PROJECT, callIds: ['c1', 'missing'], scorerRefs: [judge, notJudge] };
  await h.app.services.evaluations.server.scoreCalls(args);
  await h.app.services.evaluations.server.scoreCalls(args);
  const all = await h.post('/calls/stream_query', { project_id: PROJECT });
  const calls = all.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
  const scores = calls.filter((c) => c.parent_id === null && c.attributes._weave_eval_meta?.score === true);
  assert.equal(scores.length, 2, 'one scorer call per pair, even after a second run');
  const ok = scores.find((c) => opName(c) === 'LLMAsAJudgeScorer.score')!;
  assert.deepEqual(ok.output, { score: 9, pass: true });
  assert.deepEqual([ok.inputs.expected, ok.inputs.output, ok.inputs.self], [5, { answer: 5 }, judge]);
  assert.equal(ok.trace_id, ok.id);
  const failed = scores.find((c) => c !== ok)!;
  assert.match(failed.exception, /only runs LLMAsAJudgeScorer/);
  const feedback = (await h.post('/feedback/query', { project_id: PROJECT })).json().result as Array<
    Record<string, any>
  >;
  assert.equal(feedback.length, 1);
  assert.deepEqual(
    [feedback[0]!.weave_ref, feedback[0]!.feedback_type, feedback[0]!.payload, feedback[0]!.call_ref],
    [
      `weave:///${PROJECT}/call/c1`,
      'wandb.runnable.judge',
      { output: { score: 9, pass: true } },
      `weave:///${PROJECT}/call/${ok.id}`,
    ],
  );
  assert.equal(calls.filter((c) => opName(c) === 'weave.completions_create').length, 1);
});
