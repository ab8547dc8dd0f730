/** Unit tests for the evaluation and object-diff logic of the web app (web/src/lib/evals.ts, diff.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diffValues, flatten } from '../../web/src/lib/diff.js';
import {
  evalKind,
  formatMetric,
  outputRefsOf,
  withResolvedOutputs,
  metric,
  refName,
  rowDiff,
  scoreDims,
  scoreValue,
  summaryLine,
  type EvalResultsRow,
  type EvalResultsSummary,
  type EvalTrial,
} from '../../web/src/lib/evals.js';

const trial = (output: unknown, scores: Record<string, unknown>): EvalTrial => ({
  predict_and_score_call_id: 'p',
  predict_call_id: null,
  model_output: output,
  scores,
  model_latency_seconds: null,
  total_tokens: null,
  total_cost: null,
});
const row = (...evals: [string, EvalTrial | null][]): EvalResultsRow => ({
  row_digest: 'r',
  raw_data_row: null,
  evaluations: evals.map(([id, t]) => ({ evaluation_call_id: id, trials: t ? [t] : [] })),
});

const summary: EvalResultsSummary = {
  row_count: 2,
  evaluations: [
    {
      evaluation_call_id: 'a',
      trial_count: 2,
      predict_total_tokens: null,
      predict_total_cost: null,
      evaluation_ref: null,
      model_ref: null,
      display_name: null,
      started_at: null,
      scorer_stats: [
        {
          scorer_key: 'exact',
          path: null,
          value_type: 'binary',
          trial_count: 2,
          numeric_mean: null,
          pass_true_count: 1,
          pass_known_count: 2,
          pass_rate: 0.5,
        },
        {
          scorer_key: 'judge',
          path: 'score',
          value_type: 'continuous',
          trial_count: 2,
          numeric_mean: 7.25,
          pass_true_count: 0,
          pass_known_count: 0,
          pass_rate: null,
        },
      ],
    },
    {
      evaluation_call_id: 'b',
      trial_count: 2,
      predict_total_tokens: null,
      predict_total_cost: null,
      evaluation_ref: null,
      model_ref: null,
      display_name: null,
      started_at: null,
      scorer_stats: [
        {
          scorer_key: 'exact',
          path: null,
          value_type: 'binary',
          trial_count: 2,
          numeric_mean: null,
          pass_true_count: 2,
          pass_known_count: 2,
          pass_rate: 1,
        },
        {
          scorer_key: 'tone',
          path: null,
          value_type: 'text',
          trial_count: 2,
          numeric_mean: null,
          pass_true_count: 0,
          pass_known_count: 0,
          pass_rate: null,
        },
      ],
    },
  ],
};

describe('evaluation results', () => {
  test('score dimensions are the union over runs, first seen first, with their sort fields', () => {
    assert.deepEqual(
      scoreDims(summary).map((d) => [d.label, d.field, d.type]),
      [
        ['exact', 'scores.exact', 'binary'],
        ['judge.score', 'scores.judge.score', 'continuous'],
        ['tone', 'scores.tone', 'text'],
      ],
    );
  });

  test('the headline metric is the pass rate of a binary score and the mean of a numeric one', () => {
    const [exact, judge, tone] = scoreDims(summary);
    const [a] = summary.evaluations;
    assert.equal(metric(a!.scorer_stats[0]), 0.5);
    assert.equal(formatMetric(exact!, 0.5), '50.0%');
    assert.equal(formatMetric(judge!, 7.25), '7.250');
    assert.equal(formatMetric(judge!, 8), '8');
    assert.equal(formatMetric(tone!, null), '—');
  });

  test('a row differs where outputs or a score differ, ignoring runs without the row', () => {
    const dims = scoreDims(summary);
    const same = rowDiff(
      row(
        ['a', trial('4', { exact: true, judge: { score: 8 } })],
        ['b', trial('4', { exact: true, judge: { score: 8 } })],
      ),
      ['a', 'b'],
      dims,
    );
    assert.equal(same.any, false);
    const differs = rowDiff(
      row(
        ['a', trial('54', { exact: false, judge: { score: 2 } })],
        ['b', trial('56', { exact: true, judge: { score: 2 } })],
      ),
      ['a', 'b'],
      dims,
    );
    assert.deepEqual(differs, {
      output: true,
      scores: { exact: true, 'judge.score': false, tone: false },
      any: true,
      present: 2,
    });
    const missing = rowDiff(row(['a', trial('x', { exact: true })], ['b', null]), ['a', 'b'], dims);
    assert.equal(missing.any, false, 'one run alone cannot differ');
    assert.equal(missing.present, 1, 'but the row is not in both runs');
    assert.equal(scoreValue({ judge: { score: 3 } }, dims[1]!), 3);
  });

  test('run kinds from their markers; names from refs or inline objects', () => {
    assert.equal(evalKind({ attributes: { _weave_eval_meta: { evaluate_model_worker: true } } }), 'Server-side');
    assert.equal(evalKind({ attributes: { _weave_eval_meta: { imperative: true } } }), 'EvaluationLogger');
    assert.equal(evalKind({ attributes: { weave: { evaluation_run: 'true' } } }), 'Run API');
    assert.equal(evalKind({ attributes: {} }), 'Evaluation');
    assert.equal(refName('weave:///acme/demo/object/qa-eval:abc'), 'qa-eval');
    assert.equal(refName({ name: 'logged' }), 'logged');
    assert.equal(refName(null), '—');
  });

  test('outputs stored as refs are listed once and replaced by their values', () => {
    const ref = 'weave:///acme/demo/object/calc_small:abc/attr/answers/key/2%2B2';
    const rows = [row(['a', trial(ref, {})], ['b', trial('4', {})]), row(['a', trial(ref, {})], ['b', null])];
    assert.deepEqual(outputRefsOf(rows), [ref]);
    const resolved = withResolvedOutputs(rows, new Map([[ref, '4']]));
    assert.equal(resolved[0]!.evaluations[0]!.trials[0]!.model_output, '4');
    assert.equal(rowDiff(resolved[0]!, ['a', 'b'], []).output, false, 'equal once resolved');
    assert.equal(rowDiff(rows[0]!, ['a', 'b'], []).output, true);
    assert.equal(withResolvedOutputs(rows, undefined), rows);
  });

  test('summary line of a run output (auto-summary shapes)', () => {
    assert.equal(
      summaryLine({
        exact: { true_count: 2, true_fraction: 0.6667 },
        judge: { score: { mean: 7.5 } },
        model_latency: { mean: 0.1 },
      }),
      'exact 67% · judge.score 7.50',
    );
    assert.equal(summaryLine(null), '');
  });
});

describe('object version diff', () => {
  test('leaves by path; changed, removed and added entries', () => {
    assert.deepEqual([...flatten({ a: { b: [1, { c: 2 }] }, 'x y': {} }).keys()], ['a.b[0]', 'a.b[1].c', '"x y"']);
    assert.deepEqual(diffValues({ t: 0.2, p: 'Be brief.', gone: 1 }, { t: 0.4, p: 'Be brief.', max: 512 }), [
      { path: 't', kind: 'changed', left: 0.2, right: 0.4 },
      { path: 'gone', kind: 'removed', left: 1 },
      { path: 'max', kind: 'added', right: 512 },
    ]);
    assert.deepEqual(diffValues('a', 'a'), []);
    assert.deepEqual(diffValues('a', 'b'), [{ path: '(value)', kind: 'changed', left: 'a', right: 'b' }]);
  });
});
