import { fillUpgradeTests } from './fresh-schemas.js';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-query/names.js';

/**
 * Migration 029 writes no `call_op_names` entry: the call indexer fills those of the calls at or
 * below each project's mark in the background (src/store/sql/call-indexes/entry-fills.ts) and writes those
 * after it, each keyed by whether the call is a root, then its op name (cut to DISPLAY_KEY_CHARS
 * characters: kind 1).
 */
const LONG = 'o'.repeat(DISPLAY_KEY_CHARS);
const CALLS = `INSERT INTO calls (project_id, id, parent_id, started_at, op_name, change_seq) VALUES
  ('acme/a', 'c1', NULL, 1000, 'weave:///acme/a/op/f:1', 1), ('acme/a', 'c2', 'c1', 1000, 'plain', 2),
  ('acme/a', 'c3', NULL, 1000, '${LONG}x', 9), ('acme/b', 'n1', NULL, 1000, 'b', NULL);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 2, 'c2', 1, ''), ('acme/b', 0, '', 1, '')`;
const ENTRIES = [
  ['acme/a', 'c1', '1', '0', 'weave:///acme/a/op/f:1'],
  ['acme/a', 'c2', '0', '0', 'plain'],
  ['acme/a', 'c3', '1', '1', LONG],
  ['acme/b', 'n1', '1', '0', 'b'],
];
const MARKED = ['acme/a', 'acme/b'];
const ENTRIES_SQL = `SELECT project_id, id, CAST(root AS TEXT) AS r, CAST(kind AS TEXT) AS k, name_key
  FROM call_op_names ORDER BY project_id, id`;

fillUpgradeTests({
  migration: 29,
  title: 'writes no call_op_names entry; the indexer fills them',
  fill: 'op_names',
  calls: CALLS,
  marked: MARKED,
  entriesSql: ENTRIES_SQL,
  row: (r) => [r.project_id, r.id, r.r, r.k, r.name_key],
  expected: ENTRIES,
});
