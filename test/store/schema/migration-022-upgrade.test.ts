import { fillUpgradeTests } from './fresh-schemas.js';

/**
 * Migration 022 writes no `call_tokens` entry: the call indexer fills those of the calls at or below
 * each project's mark in the background (src/store/sql/call-indexes/entry-fills.ts), and writes those of the
 * calls after it, each with its `summary.weave.total_tokens` (src/store/sql/calls-query/tokens.ts), a call
 * without usage (or without a summary) under `is_null = 1`.
 */
const usage = (u: unknown): string => `'${JSON.stringify({ usage: u })}'`;
const CALLS = `INSERT INTO calls (project_id, id, started_at, ended_at, summary, change_seq) VALUES
  ('acme/a', 'c1', 1000, 6000, ${usage({ m: { total_tokens: 12 } })}, NULL),
  ('acme/a', 'c2', 1000, NULL, NULL, 5),
  ('acme/a', 'c3', 1000, 3999, ${usage({ a: { input_tokens: 2, output_tokens: 3 }, b: { total_tokens: '9', prompt_tokens: 1 } })}, 5),
  ('acme/a', 'c4', 1000, 9000, '{}', 5),
  ('acme/a', 'c5', 1000, 9000, ${usage({ m: { total_tokens: 7 } })}, 6),
  ('acme/a', 'c0', 5000, 6000, ${usage([{ total_tokens: 2.5 }])}, 4),
  ('acme/b', 'n1', 1000, 2000, ${usage({ m: {} })}, NULL), ('acme/b', 'n3', 1000, 2000, '{}', NULL),
  ('acme/b', 'n0', 1000, 2000, '{}', 1), ('acme/c', 'x1', 1000, 2000, '{}', 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 5, 'c4', 1, 'c1'), ('acme/b', 0, '', 0, 'n2')`;
const ENTRIES: Array<[string, string, number, number]> = [
  ['acme/a', 'c0', 0, 2.5],
  ['acme/a', 'c1', 0, 12],
  ['acme/a', 'c2', 1, 0],
  ['acme/a', 'c3', 0, 6],
  ['acme/a', 'c4', 1, 0],
  ['acme/a', 'c5', 0, 7],
  ['acme/b', 'n0', 1, 0],
  ['acme/b', 'n1', 0, 0],
  ['acme/b', 'n3', 1, 0],
  ['acme/c', 'x1', 1, 0],
];
const MARKED = ['acme/a', 'acme/b'];
const ENTRIES_SQL = 'SELECT project_id, id, is_null, tokens FROM call_tokens ORDER BY project_id, id';

fillUpgradeTests({
  migration: 22,
  title: 'writes no call_tokens entry; the indexer fills them',
  fill: 'tokens',
  calls: CALLS,
  marked: MARKED,
  entriesSql: ENTRIES_SQL,
  row: (r) => [r.project_id, r.id, Number(r.is_null), Number(r.tokens)],
  expected: ENTRIES,
});
