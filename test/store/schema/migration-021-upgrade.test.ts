import { fillUpgradeTests } from './fresh-schemas.js';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-query/names.js';

/**
 * Migration 021 writes no `call_display` entry: the call indexer fills those of the calls at or below
 * each project's mark in the background (src/store/sql/call-indexes/entry-fills.ts), and writes those of the
 * calls after it: a whole name under itself, a longer one under its first DISPLAY_KEY_CHARS
 * characters, a NULL one under '' (kinds 0, 1, 2); deleted calls keep theirs (queries skip them).
 */
const LONG = 'é'.repeat(DISPLAY_KEY_CHARS);
const CALLS_020 = `INSERT INTO calls (project_id, id, started_at, display_name, deleted_at, change_seq) VALUES
  ('acme/a', 'c1', 1000, 'one', NULL, NULL), ('acme/a', 'c2', 1000, NULL, NULL, 5),
  ('acme/a', 'c3', 2000, '${LONG}x', NULL, 5), ('acme/a', 'c4', 1000, 'late', NULL, 5),
  ('acme/a', 'c5', 1000, 'after', NULL, 6), ('acme/a', 'c0', 5000, '', NULL, 4),
  ('acme/a', 'c7', 1000, '${LONG}', 7000, 3),
  ('acme/b', 'n1', 1000, 'b', NULL, NULL), ('acme/b', 'n3', 1000, 'b', NULL, NULL),
  ('acme/b', 'n0', 1000, 'b', NULL, 1), ('acme/c', 'x1', 1000, 'x', NULL, 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 5, 'c3', 1, 'c1'), ('acme/b', 0, '', 0, 'n2')`;
const ENTRIES_021 = [
  ['acme/a', 'c0', '0', ''],
  ['acme/a', 'c1', '0', 'one'],
  ['acme/a', 'c2', '2', ''],
  ['acme/a', 'c3', '1', LONG],
  ['acme/a', 'c4', '0', 'late'],
  ['acme/a', 'c5', '0', 'after'],
  ['acme/a', 'c7', '0', LONG],
  ['acme/b', 'n0', '0', 'b'],
  ['acme/b', 'n1', '0', 'b'],
  ['acme/b', 'n3', '0', 'b'],
  ['acme/c', 'x1', '0', 'x'],
];
const MARKED = ['acme/a', 'acme/b'];
const DISPLAY_SQL =
  'SELECT project_id, id, CAST(kind AS TEXT) AS k, display_key FROM call_display ORDER BY project_id, id';

fillUpgradeTests({
  migration: 21,
  title: 'writes no call_display entry; the indexer fills them',
  fill: 'display',
  calls: CALLS_020,
  marked: MARKED,
  entriesSql: DISPLAY_SQL,
  row: (r) => [r.project_id, r.id, r.k, r.display_key],
  expected: ENTRIES_021,
});
