import { fillUpgradeTests } from './fresh-schemas.js';

/**
 * Migration 028 writes no `call_latency_roots` entry: the call indexer fills those of the trace roots
 * at or below each project's mark in the background (src/store/sql/call-indexes/entry-fills.ts), and writes
 * those of the roots after it; children get none.
 */
const CALLS = `INSERT INTO calls (project_id, id, parent_id, started_at, ended_at, latency_ms, change_seq) VALUES
  ('acme/a', 'r1', NULL, 1000, 9000, 8, 1), ('acme/a', 'k1', 'r1', 1000, 2000, 1, 2),
  ('acme/a', 'r2', NULL, 1000, NULL, NULL, 3), ('acme/a', 'r3', NULL, 1000, 5000, 4, 9),
  ('acme/b', 'r4', NULL, 1000, 3000, 2, NULL), ('acme/b', 'k4', 'r4', 1000, 3000, 2, NULL);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 3, 'r2', 1, ''), ('acme/b', 0, '', 1, '')`;
const ENTRIES = [
  ['acme/a', 'r1', '8'],
  ['acme/a', 'r2', '9223372036854775807'],
  ['acme/a', 'r3', '4'],
  ['acme/b', 'r4', '2'],
];
const MARKED = ['acme/a', 'acme/b'];
const ENTRIES_SQL =
  'SELECT project_id, id, CAST(latency_ms AS TEXT) AS l FROM call_latency_roots ORDER BY project_id, id';

fillUpgradeTests({
  migration: 28,
  title: 'writes no call_latency_roots entry; the indexer fills those of roots',
  fill: 'latency_roots',
  calls: CALLS,
  marked: MARKED,
  entriesSql: ENTRIES_SQL,
  row: (r) => [r.project_id, r.id, r.l],
  expected: ENTRIES,
});
