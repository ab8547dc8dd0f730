/** Unit tests for dataset editing and "Add to dataset" (web/src/lib/datasets.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Call } from '../../web/src/lib/call.js';
import {
  choicesProblem,
  editCount,
  editSummary,
  fieldChoices,
  NO_EDITS,
  parseCell,
  rowsFromCalls,
  tableUpdates,
  withAdded,
  withChanged,
  withRemoved,
} from '../../web/src/lib/datasets.js';

test('edits become table updates from the highest index down, then appends, so no step moves a later one', () => {
  let e = withChanged(NO_EDITS, 1, { q: 'one' });
  e = withChanged(e, 7, { q: 'seven' });
  e = withRemoved(e, 4, true);
  e = withAdded(e, 0, { q: 'new' });
  e = withAdded(e, 1, { q: 'newer' });
  assert.deepEqual(tableUpdates(e), [
    { pop: { index: 7 } },
    { insert: { index: 7, row: { q: 'seven' } } },
    { pop: { index: 4 } },
    { pop: { index: 1 } },
    { insert: { index: 1, row: { q: 'one' } } },
    { append: { row: { q: 'new' } } },
    { append: { row: { q: 'newer' } } },
  ]);
  assert.equal(editCount(e), 5);
  assert.equal(editSummary(e), 'Unsaved: 2 changed, 1 removed, 2 added');
  // a changed row that is then removed is one removal; restoring it brings the change back
  const removed = withRemoved(e, 7, true);
  assert.deepEqual(tableUpdates(removed).slice(0, 2), [{ pop: { index: 7 } }, { pop: { index: 4 } }]);
  assert.equal(editSummary(removed), 'Unsaved: 1 changed, 2 removed, 2 added');
  assert.equal(editSummary(withRemoved(removed, 7, false)), editSummary(e));
  // an added row edited in place, then dropped
  assert.deepEqual(withAdded(e, 0, { q: 'edited' }).added, [{ q: 'edited' }, { q: 'newer' }]);
  assert.deepEqual(withAdded(e, 0, null).added, [{ q: 'newer' }]);
  assert.equal(editSummary(NO_EDITS), 'No changes');
  assert.deepEqual(tableUpdates(NO_EDITS), []);
});

test('a column of strings takes text as typed; other columns take JSON and say when it is not', () => {
  assert.deepEqual(parseCell('42', 'text'), { value: '42' });
  assert.deepEqual(parseCell('', 'text'), { value: '' });
  assert.deepEqual(parseCell('42', 7), { value: 42 });
  assert.deepEqual(parseCell('{"a": [1]}', { a: [] }), { value: { a: [1] } });
  assert.deepEqual(parseCell('five', 7), { error: 'Not valid JSON (this column holds JSON values)' });
  assert.equal(parseCell('  ', 7), null, 'an emptied field leaves the cell out');
  // a column no row has yet: JSON when it parses, else the text
  assert.deepEqual(parseCell('true', undefined), { value: true });
  assert.deepEqual(parseCell('hello', undefined), { value: 'hello' });
});

test('fields of calls become columns under their last name, the whole path where two would clash', () => {
  const choices = fieldChoices(['inputs.question', 'inputs.meta.text', 'output.text', 'output', 'inputs.a\\.b']);
  assert.deepEqual(
    choices.map((c) => [c.path, c.column, c.on]),
    [
      ['inputs.question', 'question', true],
      ['inputs.meta.text', 'inputs_meta_text', true],
      ['output.text', 'output_text', true],
      ['output', 'output', true],
      ['inputs.a\\.b', 'a.b', true],
    ],
  );
  const calls = [
    { id: '1', inputs: { question: 'Q1', meta: { text: 'm' } }, output: { text: 'A1' } },
    { id: '2', inputs: { question: 'Q2' }, output: 'plain' },
  ] as unknown as Call[];
  const chosen = fieldChoices(['inputs.question', 'inputs.meta.text', 'output.text']).map((c) =>
    c.path === 'output.text' ? { ...c, column: ' answer ' } : c,
  );
  assert.deepEqual(rowsFromCalls(calls, chosen), [
    { question: 'Q1', inputs_meta_text: 'm', answer: 'A1' },
    { question: 'Q2' },
  ]);
  assert.equal(choicesProblem(chosen), null);
  assert.equal(choicesProblem(chosen.map((c) => ({ ...c, on: false }))), 'Choose at least one field');
  assert.equal(choicesProblem(chosen.map((c) => ({ ...c, column: 'x' }))), 'Two fields would both be column “x”');
  assert.equal(choicesProblem([{ path: 'output', column: ' ', on: true }]), 'Name the column for output');
});
