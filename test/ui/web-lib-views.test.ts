/** The traces columns, saved views and Use-tab code of web/src/lib (no browser). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cellText,
  cellValue,
  fetchedFields,
  joinPath,
  leafColumns,
  moveColumn,
  orderedColumns,
  splitPath,
} from '../../web/src/lib/columns.js';
import { parseTracesSearch } from '../../web/src/lib/query.js';
import { searchOfView, viewDefinition, sameView } from '../../web/src/lib/saved-views.js';
import { callUseSnippets } from '../../web/src/lib/use-code.js';
import { compareTraces, compareValues, parseCompareIds } from '../../web/src/lib/compare-calls.js';
import type { Call } from '../../web/src/lib/call.js';

test('leaf columns: objects walked, arrays and scalars are leaves, a dot in a key escaped', () => {
  const calls = [
    { inputs: { q: 'a', user: { id: 1, 'x.y': true }, tags: ['t'] }, output: 'done' },
    { inputs: { q: 'b', extra: {} }, output: { choices: [1] } },
  ] as Pick<Call, 'inputs' | 'output'>[];
  assert.deepEqual(leafColumns(calls), [
    'inputs.q',
    'inputs.user.id',
    'inputs.user.x\\.y',
    'inputs.tags',
    'output',
    'output.choices',
  ]);
  assert.deepEqual(splitPath('inputs.user.x\\.y'), ['inputs', 'user', 'x.y']);
  assert.equal(joinPath(['inputs', 'user', 'x.y']), 'inputs.user.x\\.y');
  const call = { inputs: { user: { 'x.y': true } }, output: null } as unknown as Call;
  assert.equal(cellValue(call, 'inputs.user.x\\.y'), true);
  assert.equal(cellValue(call, 'output.choices'), undefined);
  assert.equal(cellText(undefined), '—');
  assert.equal(cellText({ a: 1 }), '{"a":1}');
  assert.equal(cellText('x'.repeat(400)).length, 301);
});

test('columns: pinned first, moves clamp, inputs/output fetched only when a column needs them', () => {
  assert.deepEqual(orderedColumns(['a', 'b', 'c'], ['c']), ['c', 'a', 'b']);
  assert.deepEqual(moveColumn(['a', 'b', 'c'], 'a', -1), ['a', 'b', 'c']);
  assert.deepEqual(moveColumn(['a', 'b', 'c'], 'a', 1), ['b', 'a', 'c']);
  assert.deepEqual(fetchedFields(['id'], ['op_name', 'feedback.reactions']), ['id']);
  assert.deepEqual(fetchedFields(['id'], ['inputs.q', 'inputs.r']), ['id', 'inputs']);
  assert.deepEqual(fetchedFields(['id'], ['output']), ['id', 'output']);
});

test('URL state: columns, pins and input sorts parsed; bad entries dropped', () => {
  assert.deepEqual(
    parseTracesSearch({ cols: ['inputs.q', 'bogus', 'op_name', 'inputs.q'], pin: 'inputs.q', sort: 'inputs.q' }),
    { cols: ['inputs.q', 'op_name'], pin: ['inputs.q'], sort: 'inputs.q' },
  );
  assert.deepEqual(parseTracesSearch({ cols: ['nope'], sort: 'attributes.x' }), {});
});

test('saved views: a view saved here loads back exactly; a Weave-written view loads what maps', () => {
  const search = parseTracesSearch({
    op: 'answer',
    cols: ['inputs.q', 'feedback.reactions'],
    pin: ['inputs.q'],
    sort: 'inputs.q',
    dir: 'asc',
    live: true,
    view: 'view-1',
  });
  const def = viewDefinition('acme/demo', search);
  assert.deepEqual(def.columns, [{ path: ['inputs', 'q'] }, { path: ['feedback', 'reactions'] }]);
  assert.deepEqual(def.pin, { left: ['inputs.q'], right: [] });
  assert.deepEqual(def.sort_by, [{ field: 'inputs.q', direction: 'asc' }]);
  assert.deepEqual(def.filter, { trace_roots_only: true, op_names: ['answer', 'weave:///acme/demo/op/answer:*'] });
  const back = searchOfView({ object_id: 'view-2', definition: JSON.parse(JSON.stringify(def)) });
  assert.equal(back.view, 'view-2');
  assert.ok(sameView(back, search));
  assert.equal(back.live, undefined);
  const weave = searchOfView({
    object_id: 'w',
    definition: {
      filter: { op_names: ['weave:///acme/demo/op/answer:*'], trace_roots_only: true },
      columns: [{ path: ['inputs', 'question'] }, { path: ['output'] }],
      pin: { left: ['inputs.question'], right: [] },
      sort_by: [{ field: 'started_at', direction: 'asc' }],
    },
  });
  assert.deepEqual(weave, {
    op: 'weave:///acme/demo/op/answer:*',
    sort: 'started_at',
    dir: 'asc',
    cols: ['inputs.question', 'output'],
    pin: ['inputs.question'],
    view: 'w',
  });
});

test('Use tab code: ids and project quoted for Python, JavaScript and the shell', () => {
  const s = callUseSnippets("o'neil/demo", 'c-1', 'http://h:1/');
  const by = Object.fromEntries(s.map((x) => [x.id, x.code]));
  assert.match(by.setup!, /^export WANDB_BASE_URL='http:\/\/h:1'$/m);
  assert.match(by.python!, /weave\.init\("o'neil\/demo"\)/);
  assert.match(by.curl!, /-d '\{"project_id":"o'\\''neil\/demo","id":"c-1"\}'/);
});

test('compare: union of paths, differences against the chosen baseline, absent paths differ', () => {
  const rows = compareValues([{ q: 'a', k: 1 }, { q: 'b', k: 1 }, { q: 'a' }], 0);
  assert.deepEqual(
    rows.map((r) => [r.path, r.differs]),
    [
      ['q', [false, true, false]],
      ['k', [false, false, true]],
    ],
  );
  assert.deepEqual(
    compareValues(['x', 'y'], 1).map((r) => r.differs),
    [[true, false]],
  );
  assert.deepEqual(parseCompareIds('a,b,a,,bad id,c'), ['a', 'b', 'c']);
});

test('compare traces: op by op, counts and errors against the baseline trace', () => {
  const a = [
    { op: 'agent', error: false, latencyMs: 100 },
    { op: 'chat', error: false, latencyMs: 40 },
    { op: 'chat', error: false, latencyMs: 30 },
  ];
  const b = [
    { op: 'agent', error: false, latencyMs: 120 },
    { op: 'chat', error: true, latencyMs: 50 },
    { op: 'tool', error: false, latencyMs: null },
  ];
  const rows = compareTraces([a, b]);
  assert.deepEqual(
    rows.map((r) => [r.op, r.shares.map((s) => s.calls), r.differs]),
    [
      ['agent', [1, 1], [false, false]],
      ['chat', [2, 1], [false, true]],
      ['tool', [0, 1], [false, true]],
    ],
  );
  assert.deepEqual(rows[1]!.shares[1], { calls: 1, errors: 1, latencyMs: 50 });
});
