import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import {
  emptyPostgres,
  tempSqliteFile,
  withPostgres,
  withSqlite,
  postgresBeforeMigration,
  sqliteBeforeMigration,
  upgradeThenFill,
} from './fresh-schemas.js';

/**
 * Migration 030 writes no `call_status_roots` entry: the call indexer fills those of the started trace
 * roots at or below each project's mark in the background (src/store/sql/call-entry-fills.ts) and
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
type Entry = { project_id: string; id: string; status: string; s: string };

test('migration 030 writes no call_status_roots entry; the indexer fills those of roots (SQLite)', async (t) => {
  const file = tempSqliteFile(t);
  sqliteBeforeMigration(file, 30, CALLS);
  const entries = await upgradeThenFill(new SqliteStore({ file }), 'status_roots', MARKED, async () =>
    withSqlite(file, (db) => db.prepare(ENTRIES_SQL).raw().all()),
  );
  assert.deepEqual(entries, ENTRIES);
});

test('migration 030 writes no call_status_roots entry; the indexer fills those of roots (PostgreSQL)', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await postgresBeforeMigration(url, 30, CALLS);
  const entries = await upgradeThenFill(new PostgresStore({ url }), 'status_roots', MARKED, () =>
    withPostgres(url, async (c) =>
      (await c.query<Entry>(ENTRIES_SQL)).rows.map((r) => [r.project_id, r.id, r.status, r.s]),
    ),
  );
  assert.deepEqual(entries, ENTRIES);
});
