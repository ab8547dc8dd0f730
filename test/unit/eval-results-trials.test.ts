import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTrial } from '../../src/domain/eval-results/trials.js';
import type { EvalCall } from '../../src/domain/eval-results/types.js';

/** Which scorer children add a score to a trial (docs/spec/evaluations.md §4.3 step 4). */

const op = (name: string): string => `weave:///acme/demo/op/${name}:d1`;

function call(partial: Partial<EvalCall> & Pick<EvalCall, 'id' | 'opName'>): EvalCall {
  return {
    parentId: 'trial',
    traceId: 'root',
    displayName: null,
    startedAt: 1_000_000,
    endedAt: 2_000_000,
    inputs: {},
    output: null,
    attributes: {},
    summary: {},
    wbUserId: null,
    ...partial,
  };
}

const trial = (scores: Record<string, unknown> | null): EvalCall =>
  call({
    id: 'trial',
    parentId: 'root',
    opName: op('Evaluation.predict_and_score'),
    inputs: { example: { q: 1 } },
    output: scores === null ? null : { output: 'four', scores, model_latency: 0.5 },
  });

const predict = call({ id: 'p', opName: op('LLMStructuredCompletionModel.predict'), output: 'four' });

test('a named class scorer recorded under its name is not added again under its op name', () => {
  const judge = call({ id: 'j', opName: op('LLMAsAJudgeScorer.score'), output: { score: 9 } });
  const { trial: built } = buildTrial('root', trial({ correctness: { score: 9 } }), [predict, judge]);
  assert.deepEqual(built.scores, { correctness: { score: 9 } });
});

test('scorer children add the scores output.scores lacks, each under its own key', () => {
  const exact = call({
    id: 'e',
    opName: op('exact.score'),
    output: true,
    attributes: { weave: { score: 'true', scorer: 'weave:///acme/demo/object/exact:s1' } },
  });
  const late = call({
    id: 'l',
    opName: op('judge.score'),
    output: true,
    attributes: { weave: { score: 'true', scorer: 'weave:///acme/demo/object/judge:s2' } },
  });
  // exact is recorded; judge came after the prediction finished and holds the same value
  const recorded = buildTrial('root', trial({ exact: true }), [predict, exact, late]).trial;
  assert.deepEqual(recorded.scores, { exact: true, judge: true });
  // an unfinished trial: every score comes from its children
  const unfinished = buildTrial('root', trial(null), [predict, exact, late]).trial;
  assert.deepEqual(unfinished.scores, { exact: true, judge: true });
  // two class scorers of one class, each recorded under its own name with its own value
  const a = call({ id: 'a', opName: op('LLMAsAJudgeScorer.score'), output: { score: 1 } });
  const b = call({ id: 'b', opName: op('LLMAsAJudgeScorer.score'), output: { score: 2 } });
  const both = buildTrial('root', trial({ strict: { score: 1 }, lenient: { score: 2 } }), [predict, a, b]).trial;
  assert.deepEqual(both.scores, { strict: { score: 1 }, lenient: { score: 2 } });
});
