import { fillUpgradeTests } from './fresh-schemas.js';

/**
 * Migration 030 writes no `call_status_roots` entry: the call indexer fills those of the started trace
 * roots at or below each project's mark in the background (src/store/sql/call-indexes/entry-fills.ts) and
 * writes those after it; children and calls without a start get none.
 */
const CALLS = `INSERT INTO calls (project_id, id, parent_id, started_at, ended_at, exception, summary, change_seq) VALUES
  ('acme/a', 'r1', NULL, 1000, 2000, 'boom', '{}', 1), ('acme/a', 'k1', 'r1', 1000, 2000, 'boom', '{}', 2),
  ('acme/a', 'r2', NULL, 3000, NULL, NULL, '{}', 3), ('acme/a', 'r3', NULL, NULL, 9000, NULL, '{}', 3),
  ('acme/a', 'r4', NULL, 4000, 5000, NULL, '{"status_counts":{"error":1}}', 9),
  ('acme/b', 'r5', NULL, 1000, 3000, NULL, '{}', NULL);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 3, 'r3', 1, ''), ('acme/b', 0, '', 1, '')`;
const ENTRIES = [
  ['acme/a', 'r1', 'error', '1000'],
  ['acme/a', 'r2', 'running', '3000'],
  ['acme/a', 'r4', 'descendant_error', '4000'],
  ['acme/b', 'r5', 'success', '1000'],
];
const MARKED = ['acme/a', 'acme/b'];
const ENTRIES_SQL =
  'SELECT project_id, id, status, CAST(started_at AS TEXT) AS s FROM call_status_roots ORDER BY project_id, id';

fillUpgradeTests({
  migration: 30,
  title: 'writes no call_status_roots entry; the indexer fills those of roots',
  fill: 'status_roots',
  calls: CALLS,
  marked: MARKED,
  entriesSql: ENTRIES_SQL,
  row: (r) => [r.project_id, r.id, r.status, r.s],
  expected: ENTRIES,
});
