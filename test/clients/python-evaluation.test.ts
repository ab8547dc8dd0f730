import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
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
