import assert from 'node:assert/strict';
import { test } from 'node:test';
import { opNameFilter, parseMonitor, sampledIn } from '../../src/domain/monitors.js';

/** The Monitor value reader and the sample (src/domain/monitors.ts, docs/monitors.md). */

const P = 'acme/demo';

test('parseMonitor reads the client shape, the older call_filter shape and defaults', () => {
  const cases: Array<[string, unknown, ReturnType<typeof parseMonitor>]> = [
    [
      'weave 0.54 shape',
      {
        active: true,
        sampling_rate: 0.25,
        op_names: [`weave:///${P}/op/solve:*`],
        query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } },
        scorers: ['weave:///acme/demo/object/j:abc'],
      },
      {
        active: true,
        samplingRate: 0.25,
        opNames: [`weave:///${P}/op/solve:*`],
        query: { $expr: { $eq: [{ $getField: 'op_name' }, { $literal: 'x' }] } },
        scorers: ['weave:///acme/demo/object/j:abc'],
      },
    ],
    [
      'call_filter, short op name',
      { active: true, call_filter: { op_names: [' solve '], query: { $expr: true } }, scorers: [] },
      { active: true, samplingRate: 1, opNames: [`weave:///${P}/op/solve:*`], query: { $expr: true }, scorers: [] },
    ],
    ['defaults', {}, { active: false, samplingRate: 1, opNames: [], query: null, scorers: [] }],
    [
      'clamped rate, non-strings dropped, active must be true',
      { active: 'yes', sampling_rate: 7, op_names: [1, ''], scorers: [null, 'r'], query: { nope: 1 } },
      { active: false, samplingRate: 1, opNames: [], query: null, scorers: ['r'] },
    ],
    ['not an object', 'x', { active: false, samplingRate: 1, opNames: [], query: null, scorers: [] }],
  ];
  for (const [name, val, expected] of cases) assert.deepEqual(parseMonitor(P, val), expected, name);
  assert.equal(parseMonitor(P, { sampling_rate: -1 }).samplingRate, 0);
  assert.equal(opNameFilter(P, 'weave:///other/p/op/x:abc'), 'weave:///other/p/op/x:abc');
});

test('sampledIn is a pure function of (project, monitor, call) that follows the rate', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => `call-${i}`);
  const picked = ids.filter((id) => sampledIn(P, 'm', id, 0.3));
  assert.deepEqual(
    ids.filter((id) => sampledIn(P, 'm', id, 0.3)),
    picked,
    'the same calls every time',
  );
  assert.ok(Math.abs(picked.length / ids.length - 0.3) < 0.03, `rate ${picked.length / ids.length}`);
  const other = ids.filter((id) => sampledIn(P, 'other', id, 0.3));
  assert.notDeepEqual(other, picked, 'another monitor samples other calls');
  assert.ok(
    ids.filter((id) => sampledIn(P, 'm', id, 0.1)).every((id) => picked.includes(id)),
    'nested rates',
  );
  assert.equal(
    ids.every((id) => sampledIn(P, 'm', id, 1)),
    true,
  );
  assert.equal(
    ids.some((id) => sampledIn(P, 'm', id, 0)),
    false,
  );
});
