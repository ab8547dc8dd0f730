/** Unit tests for the agents pages' pure helpers (web/src/lib/agents.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  highlight,
  hitText,
  nestTurn,
  parseAttrColumns,
  pivotStats,
  prettyJsonText,
} from '../../web/src/lib/agents.js';

const m = (type: string, agent_name: string) => ({ type, agent_name });

test('a subagent nests under the agent that started it, and closes when its parent speaks again', () => {
  const depths = nestTurn([
    m('user_message', 'User'),
    m('agent_start', 'planner'),
    m('agent_start', 'weather'),
    m('user_message', 'User'),
    m('tool_call', 'weather'),
    m('assistant_message', 'weather'),
    m('assistant_message', 'planner'),
    m('agent_start', 'writer'),
    m('assistant_message', 'writer'),
  ]).map((n) => n.depth);
  assert.deepEqual(depths, [0, 0, 1, 1, 1, 1, 0, 1, 1]);
});

test('a turn without an agent start keeps every message at the top level', () => {
  assert.deepEqual(
    nestTurn([m('user_message', 'User'), m('assistant_message', 'a'), m('tool_call', 'a')]).map((n) => n.depth),
    [0, 0, 0],
  );
});

test('marks are case-sensitive like the search, every occurrence, text kept whole', () => {
  assert.deepEqual(highlight('Porto, porto, Porto', 'Porto'), [
    { text: 'Porto', hit: true },
    { text: ', porto, ', hit: false },
    { text: 'Porto', hit: true },
  ]);
  assert.deepEqual(highlight('abc', ''), [{ text: 'abc', hit: false }]);
  assert.deepEqual(highlight('<b>x</b>', 'x'), [
    { text: '<b>', hit: false },
    { text: 'x', hit: true },
    { text: '</b>', hit: false },
  ]);
});

test("a hit's preview shows its text parts; anything else as sent", () => {
  assert.equal(hitText('[{"type":"text","content":"a"},{"type":"text","content":"b"}]'), 'a\nb');
  assert.equal(hitText('plain text'), 'plain text');
  assert.equal(hitText('[{"type":"tool_call","name":"f","arguments":{"a":1}}]'), 'f({"a":1})');
  assert.equal(hitText('[{"type":"tool_call_response","id":"c","response":{"ok":true}}]'), '{"ok":true}');
  assert.equal(hitText('[{"type":"image","url":"x"}]'), '[{"type":"image","url":"x"}]');
  assert.equal(prettyJsonText('{"a":1}'), '{\n  "a": 1\n}');
  assert.equal(prettyJsonText('not json'), 'not json');
  assert.equal(prettyJsonText(null), '');
});

test('stats rows pivot into one row per day with a value per group; the empty group is (none)', () => {
  const rows = [
    { timestamp: 'd1', agent_name: 'a', count_spans: 2 },
    { timestamp: 'd1', agent_name: '', count_spans: 1 },
    { timestamp: 'd2', agent_name: 'a', count_spans: null },
  ];
  assert.deepEqual(pivotStats(rows, 'count_spans', 'agent_name'), {
    data: [
      { timestamp: 'd1', a: 2, '(none)': 1 },
      { timestamp: 'd2', a: 0 },
    ],
    groups: ['a', '(none)'],
  });
  assert.deepEqual(pivotStats([{ timestamp: 'd1', n: 3 }], 'n', null), {
    data: [{ timestamp: 'd1', value: 3 }],
    groups: ['value'],
  });
});

test('custom attribute columns from the URL keep known sources only', () => {
  assert.deepEqual(parseAttrColumns('custom_attrs_string:app.tenant,custom_attrs_int:a:b,bogus:x,nocolon'), [
    { source: 'custom_attrs_string', key: 'app.tenant' },
    { source: 'custom_attrs_int', key: 'a:b' },
  ]);
  assert.deepEqual(parseAttrColumns(undefined), []);
});
