/** Unit tests for leaderboards and the evaluations list (web/src/lib/leaderboards.ts, eval-list.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Call } from '../../web/src/lib/call.js';
import { parseEvalListSearch, runMetrics, visibleRuns } from '../../web/src/lib/eval-list.js';
import { bestValues, boardRows, boardView, metricValue, sortRows } from '../../web/src/lib/leaderboards.js';

const EVAL = 'weave:///acme/demo/object/qa:e1';
const OTHER = 'weave:///acme/demo/object/other:e2';
const run = (id: string, started: string, model: string, self: string, output: unknown, extra: Partial<Call> = {}) =>
  ({ id, started_at: started, ended_at: started, exception: null, inputs: { self, model }, output, ...extra }) as Call;

test('a Leaderboard value in either client shape; a model per row, the newest run per column', () => {
  const board = boardView({
    object_id: 'b',
    digest: 'd',
    val: {
      description: '',
      columns: [
        { evaluation_object_ref: EVAL, scorer_name: 'acc', summary_metric_path: 'true_fraction' },
        { evaluation_object_ref: EVAL, scorer_name: 'lat', summary_metric_path_parts: ['mean'], should_minimize: true },
        { evaluation_object_ref: OTHER, scorer_name: 'list', summary_metric_path: '1' },
        { scorer_name: 'no ref' },
      ],
    },
  });
  assert.equal(board.description, null);
  assert.deepEqual(
    board.columns.map((c) => [c.scorer, c.path, c.minimize]),
    [
      ['acc', ['true_fraction'], false],
      ['lat', ['mean'], true],
      ['list', ['1'], false],
    ],
  );
  assert.equal(metricValue({ list: [5, 6] }, board.columns[2]!), 6);
  assert.equal(metricValue({ acc: 3 }, board.columns[0]!), undefined);
  const A = 'weave:///acme/demo/object/model-a:1';
  const B = 'weave:///acme/demo/object/model-b:1';
  const runs = [
    run('a-old', '2026-01-01', A, EVAL, { acc: { true_fraction: 0.5 }, lat: { mean: 2 } }),
    run('a-new', '2026-01-03', A, EVAL, { acc: { true_fraction: 0.9 }, lat: { mean: 3 } }),
    run('b', '2026-01-02', B, EVAL, { acc: { true_fraction: 0.7 }, lat: { mean: 1 } }),
    run('b-other', '2026-01-02', B, OTHER, { list: [0, 4] }),
    run('failed', '2026-01-05', B, EVAL, { acc: { true_fraction: 1 } }, { exception: 'boom' }),
    run('inline', '2026-01-05', { name: 'x' } as unknown as string, EVAL, { acc: { true_fraction: 1 } }),
  ];
  const rows = boardRows(board, runs);
  assert.deepEqual(
    rows.map((r) => [r.modelRef, r.cells.map((c) => c && [c.value, c.runId, c.runs])]),
    [
      [A, [[0.9, 'a-new', 2], [3, 'a-new', 2], null]],
      [
        B,
        [
          [0.7, 'b', 1],
          [1, 'b', 1],
          [4, 'b-other', 1],
        ],
      ],
    ],
  );
  assert.deepEqual(bestValues(board, rows), [0.9, 1, null]);
  assert.deepEqual(
    sortRows(board, rows, 1).map((r) => r.modelRef),
    [B, A],
    'lower is better',
  );
  assert.deepEqual(
    sortRows(board, rows, 2).map((r) => r.modelRef),
    [B, A],
    'rows without a value go last',
  );
});

test('the evaluations list: filters and order from the URL, runs without the metric last', () => {
  assert.deepEqual(parseEvalListSearch({ q: 'x', kind: 'Bogus', status: 'running', dir: 'up', sort: 'metric:a' }), {
    q: 'x',
    status: 'running',
    sort: 'metric:a',
  });
  assert.deepEqual(
    [...runMetrics({ a: { true_fraction: 0.5 }, j: { score: { mean: 7 } }, model_latency: { mean: 0.1 } })],
    [
      ['a', 0.5],
      ['j.score', 7],
      ['model_latency', 0.1],
    ],
  );
  const M = (n: string) => `weave:///acme/demo/object/${n}:1`;
  const runs = [
    run('r1', '2026-01-01', M('small'), EVAL, { a: { true_fraction: 0.5 } }),
    run('r2', '2026-01-02', M('large'), EVAL, { a: { true_fraction: 0.9 } }),
    run('r3', '2026-01-03', M('large'), EVAL, null, { ended_at: null }),
  ];
  const ids = (s: Parameters<typeof visibleRuns>[1]) => visibleRuns(runs, s).map((c) => c.id);
  assert.deepEqual(ids({}), ['r3', 'r2', 'r1'], 'newest first');
  assert.deepEqual(ids({ model: 'large' }), ['r3', 'r2']);
  assert.deepEqual(ids({ status: 'running' }), ['r3']);
  assert.deepEqual(ids({ q: 'SMALL' }), ['r1']);
  assert.deepEqual(ids({ sort: 'metric:a' }), ['r2', 'r1', 'r3']);
  assert.deepEqual(ids({ sort: 'metric:a', dir: 'asc' }), ['r1', 'r2', 'r3']);
  assert.deepEqual(ids({ sort: 'run', dir: 'desc' }), ['r3', 'r2', 'r1']);
});
