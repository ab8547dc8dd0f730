import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from './python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from './python-venv.js';

/**
 * Client-side evaluations of the official Python client against a real Heddle: a declarative
 * `weave.Evaluation(...).evaluate(model)` and an `EvaluationLogger` run are both read back through
 * `eval_results/query`, whose aggregates must equal the summaries the client computed itself
 * (docs/spec/evaluations.md §4, §7).
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'eval_demo.py');
const PROJECT = 'acme/evaldemo';

type Json = Record<string, any>;

async function evalResults(server: ServerProcess, key: string, body: Json): Promise<Json> {
  const res = await fetch(`${server.url}/v2/${PROJECT}/eval_results/query`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

async function api(server: ServerProcess, key: string, route: string, body: Json): Promise<Json> {
  const res = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${route}: ${text}`);
  return route === '/calls/stream_query'
    ? {
        calls: text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Json),
      }
    : (JSON.parse(text) as Json);
}

const opName = (call: Json): string =>
  String(call.op_name)
    .replace(/^weave:\/\/\/[^/]+\/[^/]+\/op\//, '')
    .replace(/:[^:]*$/, '');

/**
 * What an evaluation's call tree looks like, without the names of its model and scorers: the root's
 * op and input keys; per trial its input keys, output keys, row and children (one predict call, one
 * call per scorer); one summarize call whose output is the root's.
 */
function treeShape(calls: Json[], rootId: string, scorers: number): Json {
  const root = calls.find((c) => c.id === rootId)!;
  const children = calls.filter((c) => c.parent_id === rootId);
  const trials = children.filter((c) => opName(c) === 'Evaluation.predict_and_score');
  const summarize = children.filter((c) => opName(c) === 'Evaluation.summarize');
  assert.equal(children.length, trials.length + 1);
  assert.equal(summarize.length, 1);
  assert.deepEqual(summarize[0]!.output, root.output);
  return {
    root: [opName(root), Object.keys(root.inputs).sort(), root.parent_id],
    trials: trials
      .map((trial) => {
        const kids = calls.filter((c) => c.parent_id === trial.id);
        return {
          inputs: Object.keys(trial.inputs).sort(),
          output: Object.keys(trial.output).sort(),
          row: String(trial.inputs.example).split('/attr/rows/id/')[1],
          predict: kids.filter((c) => opName(c).endsWith('.predict')).length,
          scorers: kids.length - 1 === scorers,
        };
      })
      .sort((a, b) => a.row!.localeCompare(b.row!)),
  };
}

/**
 * The same dataset evaluated by Heddle (`/evaluations/evaluate_model`): an
 * `LLMStructuredCompletionModel` and an `LLMAsAJudgeScorer` whose models are a training model of the
 * project, served by the built-in trainer through the `heddle/` provider (docs/spec/evaluations.md §6).
 */
async function serverEvaluation(server: ServerProcess, key: string, datasetName: string): Promise<string> {
  const [entity, project] = PROJECT.split('/') as [string, string];
  const created = await fetch(`${server.url}/v1/preview/models`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify({ entity, project, name: 'bot', base_model: 'heddle/byte-decoder' }),
  });
  assert.equal(created.status, 200, await created.text());
  const publish = async (name: string, val: Json, builtin: string | null = null): Promise<string> => {
    const req = { obj: { project_id: PROJECT, object_id: name, val, builtin_object_class: builtin } };
    return `weave:///${PROJECT}/object/${name}:${(await api(server, key, '/obj/create', req)).digest}`;
  };
  const [dataset] = (
    await api(server, key, '/objs/query', {
      project_id: PROJECT,
      filter: { object_ids: [datasetName], latest_only: true },
    })
  ).objs as Json[];
  const llm = (name: string, template: Json[]) =>
    publish(
      name,
      {
        llm_model_id: 'heddle/bot',
        default_params: { messages_template: template, response_format: 'text', temperature: 0, max_tokens: 4 },
      },
      'LLMStructuredCompletionModel',
    );
  const model = await llm('answerer', [{ role: 'user', content: 'What is {question}?' }]);
  const judge = await publish('judge', {
    _type: 'LLMAsAJudgeScorer',
    _class_name: 'LLMAsAJudgeScorer',
    _bases: ['Scorer', 'Object', 'BaseModel'],
    name: 'judge',
    description: null,
    column_map: null,
    model: await llm('judge_model', [{ role: 'system', content: 'Judge.' }]),
    scoring_prompt: 'Expected {expected}; got {output}',
  });
  const evaluation = await publish('server_eval', {
    _type: 'Evaluation',
    _class_name: 'Evaluation',
    _bases: ['Object', 'BaseModel'],
    name: 'server_eval',
    description: null,
    dataset: `weave:///${PROJECT}/object/${datasetName}:${dataset!.digest}`,
    scorers: [judge],
    preprocess_model_input: null,
    trials: 1,
    metadata: null,
    evaluation_name: null,
  });
  const { call_id: callId } = await api(server, key, '/evaluations/evaluate_model', {
    project_id: PROJECT,
    evaluation_ref: evaluation,
    model_ref: model,
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { status } = await api(server, key, '/evaluations/status', { project_id: PROJECT, call_id: callId });
    if (status.code === 'complete') return callId as string;
    assert.ok(status.code === 'running' || status.code === 'not_found', JSON.stringify(status));
    assert.ok(Date.now() < deadline, 'the server-side evaluation did not complete');
    await sleep(50);
  }
}

/** scorer_key[.path] → stats, from one evaluation's summary. */
function statsOf(summary: Json): Map<string, Json> {
  const [evaluation] = summary.evaluations;
  return new Map(
    evaluation.scorer_stats.map((s: Json) => [s.path === null ? s.scorer_key : `${s.scorer_key}.${s.path}`, s]),
  );
}

test(
  `evaluations of weave==${WEAVE_PY_VERSION} read back through eval_results`,
  { timeout: 10 * 60_000 },
  async (t) => {
    const venv = await ensureWeaveVenv();
    if (!venv.ok) {
      if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
      t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
      return;
    }
    const server = await startServerProcess(t);
    const key = await server.createKey('acme', { user: 'alice' });
    const { result, log } = await runPythonDemo(venv.python, SCRIPT, server, key, [PROJECT]);
    assert.ok(result.declarative_id, log);

    // declarative: three dataset rows (refs to the published dataset), two scorers
    const declarative = await evalResults(server, key, {
      evaluation_call_ids: [result.declarative_id],
      include_summary: true,
      include_raw_data_rows: true,
      resolve_row_refs: true,
    });
    assert.equal(declarative.total_rows, 3, log);
    const questions = declarative.rows.map((r: Json) => r.raw_data_row?.question).sort();
    assert.deepEqual(questions, ['2+2', '3+3', 'capital of France']);
    for (const row of declarative.rows) {
      const [trial] = row.evaluations[0].trials;
      assert.ok(trial.predict_call_id, 'the predict call is found among the trial children');
      assert.deepEqual(Object.keys(trial.scorer_call_ids).sort(), ['closeness', 'exact']);
    }
    const client = result.declarative_summary;
    const stats = statsOf(declarative.summary);
    assert.equal(stats.get('exact')?.pass_true_count, client.exact.true_count, log);
    assert.equal(stats.get('exact')?.pass_rate, client.exact.true_fraction);
    assert.ok(Math.abs(stats.get('closeness.score')?.numeric_mean - client.closeness.score.mean) < 1e-9);
    assert.equal(stats.get('closeness.length_ok')?.pass_true_count, client.closeness.length_ok.true_count);

    // imperative: the EvaluationLogger's predictions with their logged scores
    const logged = await evalResults(server, key, { evaluation_call_ids: [result.logger_id], include_summary: true });
    assert.equal(logged.total_rows, 2, log);
    const loggedStats = statsOf(logged.summary);
    const loggerSummary = result.logger_summary;
    assert.equal(loggedStats.get('correct')?.pass_true_count, loggerSummary.correct.true_count, log);
    assert.equal(loggedStats.get('correct')?.pass_rate, loggerSummary.correct.true_fraction);
    assert.ok(Math.abs(loggedStats.get('quality')?.numeric_mean - loggerSummary.quality.mean) < 1e-9);

    // side by side, the logger's inline rows meet the dataset's rows: a row ref names its row by the
    // same digest an inline copy of the row hashes to, so the two rows both runs saw are shared
    const both = await evalResults(server, key, {
      evaluation_call_ids: [result.declarative_id, result.logger_id],
      require_intersection: true,
    });
    assert.equal(both.total_rows, 2);
    for (const row of both.rows) assert.equal(row.evaluations.length, 2);

    // Heddle evaluates the same dataset itself: its call tree has the shape of the client's, over
    // the same dataset rows, and eval_results sets the two runs side by side
    const serverId = await serverEvaluation(server, key, 'arith');
    // the Python client's trace id is not its root's id; Heddle's is (docs/spec/evaluations.md §6.2)
    const traceOf = async (id: string): Promise<Json[]> => {
      const { call } = await api(server, key, '/call/read', { project_id: PROJECT, id });
      const filter = { trace_ids: [call.trace_id] };
      return (await api(server, key, '/calls/stream_query', { project_id: PROJECT, filter })).calls;
    };
    assert.deepEqual(
      treeShape(await traceOf(serverId), serverId, 1),
      treeShape(await traceOf(result.declarative_id), result.declarative_id, 2),
    );
    const compared = await evalResults(server, key, {
      evaluation_call_ids: [result.declarative_id, serverId],
      require_intersection: true,
      include_summary: true,
    });
    assert.equal(compared.total_rows, 3);
    assert.deepEqual(
      compared.summary.evaluations.map((e: Json) => e.trial_count),
      [3, 3],
    );

    // call.apply_scorer: each result is runnable feedback on the scored call, as the client reads it
    const applied = result.applied;
    assert.deepEqual(applied.results, { exact: true, length_check: { short: true, length: 1 } }, log);
    const expected = [
      ['exact', `weave:///${PROJECT}/op/exact:`],
      ['length_check', `weave:///${PROJECT}/object/length_check:`],
    ] as const;
    const fromClient = new Map<string, Json>(applied.feedback.map((f: Json) => [f.feedback_type, f]));
    assert.equal(fromClient.size, 2, JSON.stringify(applied.feedback));
    for (const [name, refPrefix] of expected) {
      const item = fromClient.get(`wandb.runnable.${name}`);
      assert.ok(item, `${name}: ${JSON.stringify(applied.feedback)}`);
      assert.deepEqual(item.payload, { output: applied.results[name] });
      assert.ok(String(item.runnable_ref).startsWith(refPrefix), item.runnable_ref);
      assert.equal(item.call_ref, `weave:///${PROJECT}/call/${applied.score_call_ids[name]}`);
    }
    const res = await fetch(`${server.url}/feedback/query`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
      body: JSON.stringify({
        project_id: PROJECT,
        query: {
          $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: `weave:///${PROJECT}/call/${applied.call_id}` }] },
        },
      }),
    });
    assert.equal(res.status, 200);
    const stored = ((await res.json()) as Json).result as Json[];
    assert.deepEqual(stored.map((f) => f.feedback_type).sort(), [
      'wandb.runnable.exact',
      'wandb.runnable.length_check',
    ]);
  },
);
