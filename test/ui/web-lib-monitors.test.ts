/** Unit tests for the monitors page's rules (web/src/lib/monitors.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Call } from '../../web/src/lib/call.js';
import {
  medianLag,
  monitorRefStem,
  monitorScores,
  monitorView,
  samplingText,
  type ScoreFeedback,
} from '../../web/src/lib/monitors.js';

test('a Monitor value reads as the server reads it: top-level or call_filter fields, client defaults', () => {
  const v = monitorView({
    object_id: 'sums',
    digest: 'd1',
    version_index: 2,
    val: {
      active: true,
      sampling_rate: 0.25,
      op_names: ['weave:///acme/demo/op/solve:*', 'classify'],
      query: { $expr: { $eq: [{ $getField: 'inputs.k' }, { $literal: 1 }] } },
      scorers: ['weave:///acme/demo/object/judge:abc', 'not-a-ref'],
    },
  });
  assert.deepEqual(
    { ...v, val: undefined },
    {
      name: 'sums',
      digest: 'd1',
      versionIndex: 2,
      active: true,
      samplingRate: 0.25,
      ops: ['solve', 'classify'],
      query: '{"$eq":[{"$getField":"inputs.k"},{"$literal":1}]}',
      scorers: ['judge', 'not-a-ref'],
      val: undefined,
    },
  );
  const old = monitorView({
    object_id: 'm',
    digest: 'd',
    version_index: 0,
    val: { call_filter: { op_names: ['x'], query: null }, sampling_rate: 7 },
  });
  assert.equal(old.active, false, 'inactive unless said');
  assert.equal(old.samplingRate, 1, 'clamped to 0–1');
  assert.deepEqual(old.ops, ['x']);
  assert.equal(old.query, null);
  assert.equal(samplingText(1), 'every call');
  assert.equal(samplingText(0.125), '12.5 % of calls');
  assert.equal(monitorRefStem('acme/demo', 'my monitor'), 'weave:///acme/demo/object/my%20monitor:');
});

test("scores join their calls: the scorer's name, its output, and the lag from the call's end", () => {
  const feedback = [
    {
      id: 'f1',
      feedback_type: 'wandb.runnable.judge',
      weave_ref: 'weave:///acme/demo/call/c1',
      payload: { output: { pass: true } },
      created_at: '2026-12-01T10:00:02.500Z',
      trigger_ref: 'weave:///acme/demo/object/sums:v0digest',
    },
    {
      id: 'f2',
      feedback_type: 'wandb.runnable.judge',
      weave_ref: 'weave:///acme/demo/call/c2',
      payload: { output: 3 },
      created_at: '2026-12-01T10:00:05.000Z',
    },
    {
      id: 'f3',
      feedback_type: 'wandb.runnable.judge',
      weave_ref: 'weave:///acme/demo/call/c3',
      payload: { output: 1 },
      created_at: '2026-12-01T10:00:09.000Z',
    },
  ] as unknown as ScoreFeedback[];
  const calls = new Map([
    ['c1', { id: 'c1', ended_at: '2026-12-01T10:00:02.000Z' }],
    ['c3', { id: 'c3', ended_at: '2026-12-01T10:00:01.000Z' }],
  ]) as unknown as Map<string, Call>;
  const scores = monitorScores(feedback, calls);
  assert.deepEqual(
    scores.map((s) => [s.callId, s.scorer, s.output, s.lagMs, s.versionDigest]),
    [
      ['c1', 'judge', { pass: true }, 500, 'v0digest'],
      ['c2', 'judge', 3, null, null],
      ['c3', 'judge', 1, 8000, null],
    ],
  );
  assert.equal(medianLag(scores), 4250);
  assert.equal(medianLag(scores.slice(0, 1)), 500);
  assert.equal(medianLag([]), null);
});
