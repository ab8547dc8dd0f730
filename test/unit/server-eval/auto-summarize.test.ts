import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoSummarize, summarizeTrials } from '../../../src/domain/server-eval/auto-summarize.js';
import { derivedCallId } from '../../../src/domain/server-eval/call-ids.js';

/** `auto_summarize` (docs/spec/evaluations.md §7.3) and the evaluation summary (§6.2 step 4). */

test('autoSummarize follows the SDK rules, typed by the first non-null value', () => {
  const cases: Array<[unknown[], unknown]> = [
    [[], {}],
    [[null, null], null],
    [[true, false, null, true], { true_count: 2, true_fraction: 2 / 3 }],
    [[1, 2, null, 6], { mean: 3 }],
    [['a', 'b'], null],
    [[[1], [2]], null],
    [
      [
        { score: 1, ok: true },
        { score: 3, ok: false },
      ],
      { score: { mean: 2 }, ok: { true_count: 1, true_fraction: 0.5 } },
    ],
    [[{ a: { b: 2 } }, { a: { b: 4 }, c: 'x' }], { a: { b: { mean: 3 } } }],
    [[{ text: 'x' }], null],
    [[{ a: null }, { b: 1 }], { b: { mean: 1 } }],
  ];
  for (const [input, expected] of cases) assert.deepEqual(autoSummarize(input), expected, JSON.stringify(input));
  // a nested summary that carries its own key is merged up instead of nested
  assert.deepEqual(autoSummarize([{ mean: 1 }, { mean: 3 }]), { mean: 2 });
  assert.deepEqual(autoSummarize([{ true_count: 1 }, { true_count: 3 }]), { true_count: { mean: 2 } });
  assert.deepEqual(autoSummarize([{ x: { x: 1 } }, { x: { x: 3 } }]), { x: { mean: 2 } });
});

test('summarizeTrials: output first, each scorer (null kept), model_latency last; empty columns dropped', () => {
  const summary = summarizeTrials(
    [
      { output: { answer: 4 }, scores: { judge: { score: 8 } }, model_latency: 0.5 },
      { output: null, scores: {}, model_latency: 1.5 },
    ],
    ['judge', 'broken'],
  );
  assert.deepEqual(summary, {
    output: { answer: { mean: 4 } },
    judge: { score: { mean: 8 } },
    broken: null,
    model_latency: { mean: 1 },
  });
  assert.deepEqual(Object.keys(summary), ['output', 'judge', 'broken', 'model_latency']);
  assert.deepEqual(summarizeTrials([{ output: 'text', scores: {}, model_latency: null }], []), {});
});

test('derivedCallId is a deterministic UUID (v8) that keeps a UUIDv7 base time prefix', () => {
  const base = '0195a1c2-3b4c-7d00-8000-000000000001';
  const a = derivedCallId(base, 'predict_and_score', 0, 1);
  assert.equal(a, derivedCallId(base, 'predict_and_score', 0, 1));
  assert.notEqual(a, derivedCallId(base, 'predict_and_score', 1, 0));
  assert.match(a, /^0195a1c2-3b4c-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(
    derivedCallId('not-a-uuid', 'x'),
    /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
});
