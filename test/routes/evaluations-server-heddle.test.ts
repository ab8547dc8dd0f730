import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BuiltinTrainer } from '../../src/training/builtin-trainer.js';
import { buildTestApp, PROJECT, type TestApp } from '../helpers/app.js';
import {
  opName,
  publish,
  publishDataset,
  publishEvaluation,
  publishJudge,
  ROWS,
  traceCalls,
} from './evaluations-server-fixture.js';

/**
 * A server-side evaluation served entirely by Heddle's own trained-model endpoint
 * (docs/spec/evaluations.md §6.2–§6.4; the `heddle/<model>` provider of §6.3): the evaluated
 * `LLMStructuredCompletionModel` and the `LLMAsAJudgeScorer`'s model are training models of the
 * project, answered by the built-in trainer's checkpoint in process. No provider is configured and
 * nothing leaves the process. The run goes through `/evaluations/evaluate_model` and the job queue.
 *
 * The untrained policy answers bytes, not JSON, so both models use `response_format: "text"` with
 * greedy decoding: every answer is a string, the same for the same prompt, and the summary follows
 * §7.3 for strings (the `output` column is left out, the scorer kept as null).
 */

type Json = Record<string, any>;

const TRIALS = 2;

/** An `LLMStructuredCompletionModel` answered by `heddle/<training model>`, as text. */
function publishHeddleModel(h: TestApp, name: string, llmModelId: string, template: unknown[]): Promise<string> {
  return publish(
    h,
    name,
    {
      llm_model_id: llmModelId,
      default_params: { messages_template: template, response_format: 'text', temperature: 0, max_tokens: 8 },
    },
    'LLMStructuredCompletionModel',
  );
}

async function trainingModel(h: TestApp, name: string): Promise<void> {
  const res = await h.post('/v1/preview/models', { project: 'demo', name, base_model: 'heddle/byte-decoder' });
  assert.equal(res.statusCode, 200, res.body);
}

const status = async (h: TestApp, callId: string): Promise<Json> => {
  const res = await h.post('/evaluations/status', { project_id: PROJECT, call_id: callId });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().status as Json;
};

test(
  'evaluate_model with a model and a judge both served by heddle/ training-model checkpoints: running → complete, the SDK call tree, eval_results',
  { timeout: 400_000 },
  async (t) => {
    const h = await buildTestApp(t, {}, { trainer: new BuiltinTrainer({ backend: 'cpu' }) });
    await trainingModel(h, 'solverbot');
    await trainingModel(h, 'judgebot');
    const dataset = await publishDataset(h, 'sums', ROWS);
    const model = await publishHeddleModel(h, 'solver', 'heddle/solverbot', [
      { role: 'user', content: 'What is {question}?' },
    ]);
    // the judge pins a checkpoint (`:step0`), the model follows the latest one
    const judgeModel = await publishHeddleModel(h, 'judge_model', 'heddle/judgebot:step0', [
      { role: 'system', content: 'Judge strictly.' },
    ]);
    const scorer = await publishJudge(h, 'sum_judge', judgeModel);
    const evaluation = await publishEvaluation(h, 'sum_eval', dataset, [scorer], TRIALS);

    const res = await h.post('/evaluations/evaluate_model', {
      project_id: PROJECT,
      evaluation_ref: evaluation,
      model_ref: model,
    });
    assert.equal(res.statusCode, 200, res.body);
    const callId = res.json().call_id as string;

    // status: (not_found until the job starts the root) → running with growing counts → complete
    const codes: string[] = [];
    let completed = 0;
    let done: Json | null = null;
    const deadline = Date.now() + 120_000;
    while (done === null) {
      assert.ok(Date.now() < deadline, `no end in sight: ${codes.join(' ')}`);
      const s = await status(h, callId);
      if (codes.at(-1) !== s.code) codes.push(s.code);
      if (s.code === 'running') {
        assert.equal(s.total_rows, ROWS.length * TRIALS);
        assert.ok(s.completed_rows >= completed && s.completed_rows <= s.total_rows, JSON.stringify(s));
        completed = s.completed_rows;
      } else if (s.code === 'complete') done = s;
      else assert.equal(s.code, 'not_found', JSON.stringify(s));
      await sleep(10);
    }
    assert.deepEqual(
      codes.filter((c) => c !== 'not_found'),
      ['running', 'complete'],
    );

    // §7.3 on string answers: no `output` column, the scorer kept as null, the latency averaged
    const summary = done.output as Json;
    assert.deepEqual(Object.keys(summary), ['correctness', 'model_latency']);
    assert.equal(summary.correctness, null);
    assert.ok(summary.model_latency.mean > 0);

    // the tree Evaluation.evaluate records client-side (§7.1), every call ended without error
    const calls = await traceCalls(h, callId);
    const byParent = (id: string) => calls.filter((c) => c.parent_id === id);
    const root = calls.find((c) => c.id === callId)!;
    assert.deepEqual([opName(root), root.parent_id, root.trace_id], ['Evaluation.evaluate', null, callId]);
    assert.deepEqual(root.inputs, { self: evaluation, model });
    assert.deepEqual(root.output, summary);
    assert.equal(root.summary.weave.status, 'success');
    assert.deepEqual(root.summary.status_counts, { success: calls.length, error: 0 });
    const children = byParent(callId);
    const trials = children.filter((c) => opName(c) === 'Evaluation.predict_and_score');
    assert.equal(trials.length, ROWS.length * TRIALS);
    const summarize = children.filter((c) => opName(c) === 'Evaluation.summarize');
    assert.equal(summarize.length, 1);
    assert.equal(children.length, trials.length + 1);
    assert.deepEqual(summarize[0]!.output, summary);
    const examples = new Map<string, number>();
    const answers = new Map<string, string>();
    const predictIds = new Set<string>();
    let tokens = 0;
    for (const trial of trials) {
      assert.deepEqual(Object.keys(trial.inputs).sort(), ['example', 'model', 'self']);
      assert.deepEqual([trial.inputs.self, trial.inputs.model], [evaluation, model]);
      assert.ok(String(trial.inputs.example).startsWith(`${dataset}/attr/rows/id/`));
      examples.set(trial.inputs.example, (examples.get(trial.inputs.example) ?? 0) + 1);
      assert.deepEqual(Object.keys(trial.output), ['output', 'scores', 'model_latency']);
      // greedy decoding: a row's answer is the same in every trial
      const answer = trial.output.output as string;
      assert.equal(typeof answer, 'string');
      assert.equal(answers.get(trial.inputs.example) ?? answer, answer);
      answers.set(trial.inputs.example, answer);
      assert.deepEqual(Object.keys(trial.output.scores), ['correctness']);
      assert.equal(typeof trial.output.scores.correctness, 'string');
      const kids = byParent(trial.id).sort((a, b) => opName(b).localeCompare(opName(a)));
      assert.deepEqual(kids.map(opName), ['LLMStructuredCompletionModel.predict', 'LLMAsAJudgeScorer.score']);
      const [predict, score] = kids as [Json, Json];
      assert.equal(predict.output, answer);
      predictIds.add(predict.id);
      assert.equal(score.output, trial.output.scores.correctness);
      const [completion] = byParent(predict.id);
      assert.equal(opName(completion!), 'weave.completions_create');
      const usage = Object.values(completion!.summary.usage as Record<string, Json>);
      assert.equal(usage.length, 1);
      assert.ok(usage[0]!.total_tokens > 0);
      tokens += usage[0]!.total_tokens as number;
      // the judge: the judge model's predict under the scorer call, served by the same checkpoint
      const [judged] = byParent(score.id);
      assert.equal(opName(judged!), 'LLMStructuredCompletionModel.predict');
      assert.equal(judged!.output, score.output);
      assert.match(judged!.inputs.user_input[0].content, /^Expected \d+; got /);
    }
    assert.deepEqual([...examples.values()], [TRIALS, TRIALS, TRIALS], 'every row once per trial');

    // the judge's result is runnable feedback on each predict call
    const feedback = await h.post('/feedback/query', { project_id: PROJECT });
    const items = feedback.json().result as Json[];
    assert.equal(items.length, ROWS.length * TRIALS);
    for (const item of items) {
      assert.equal(item.feedback_type, 'wandb.runnable.sum_judge');
      assert.equal(typeof item.payload.output, 'string');
    }

    // eval_results reads the run back like a client-side evaluation
    const results = await h.post(`/v2/${PROJECT}/eval_results/query`, {
      evaluation_call_ids: [callId],
      include_summary: true,
      include_raw_data_rows: true,
      resolve_row_refs: true,
    });
    assert.equal(results.statusCode, 200, results.body);
    const body = results.json();
    assert.equal(body.total_rows, ROWS.length);
    assert.deepEqual(body.rows.map((r: Json) => r.raw_data_row.question).sort(), ROWS.map((r) => r.question).sort());
    for (const row of body.rows) {
      const [evaluationRow] = row.evaluations;
      assert.equal(evaluationRow.trials.length, TRIALS);
      for (const trial of evaluationRow.trials) {
        assert.equal(typeof trial.scores.correctness, 'string');
        assert.equal(trial.model_output, answers.get(`${dataset}/attr/rows/id/${row.row_digest}`));
        assert.ok(predictIds.has(trial.predict_call_id), 'the trial names its predict call');
        // scorer_call_ids pairs keys with op names (§4.3): the key `correctness` of an
        // `LLMAsAJudgeScorer.score` call matches none, here as with the Python client
      }
    }
    const [evaluated] = body.summary.evaluations;
    assert.equal(evaluated.trial_count, ROWS.length * TRIALS);
    assert.equal(evaluated.predict_total_tokens, tokens);
    assert.deepEqual(
      evaluated.scorer_stats.map((s: Json) => [s.scorer_key, s.path, s.value_type, s.numeric_mean, s.trial_count]),
      [['correctness', null, 'text', null, ROWS.length * TRIALS]],
    );
  },
);
