import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { DISPLAY_KEY_CHARS } from '../../../src/store/sql/calls-query/names.js';
import { MIGRATIONS } from '../../../src/store/sql/migrations/index.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { fillDone } from '../contract/parts.js';
import {
  emptyPostgres,
  tempSqliteFile,
  withPostgres,
  withSqlite,
  postgresBeforeMigration,
  sqliteBeforeMigration,
} from './fresh-schemas.js';

/**
 * Migration 026 writes no `call_trace_names` entry (the upgrade does not read every call): the call
 * indexer fills them in the background (src/store/sql/call-indexes/entry-fills.ts). A project indexed
 * before the upgrade (`acme/a`) and one part way (`acme/b`) are filled in once covered; one the
 * indexer first reaches after it (`acme/c`) gets its entries from the indexer and its fill row done
 * with its mark. Then every call has its entry: the display name unless NULL or '', else the op's
 * display name, else the op name, cut to DISPLAY_KEY_CHARS characters (kind 1), NULL under '' (kind 2).
 */
const BEFORE_026 = MIGRATIONS.findIndex((m) => m.id === 26);
const LONG = 'é'.repeat(DISPLAY_KEY_CHARS);
const CALLS = `INSERT INTO calls (project_id, id, started_at, op_name, op_display_name, display_name, change_seq) VALUES
  ('acme/a', 'c1', 1000, 'weave:///acme/a/op/f:1', 'f', NULL, NULL), ('acme/a', 'c2', 1000, 'plain', NULL, '', 5),
  ('acme/a', 'c3', 2000, 'weave:///acme/a/op/g:1', '${LONG}x', NULL, 5), ('acme/a', 'c4', 1000, 'o', 'o', 'named', 6),
  ('acme/a', 'c5', 1000, NULL, NULL, NULL, 6),
  ('acme/b', 'n1', 1000, 'b', NULL, NULL, NULL), ('acme/b', 'n3', 1000, 'b', 'bee', '${LONG}', NULL),
  ('acme/c', 'x1', 1000, 'x', NULL, '', 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 5, 'c3', 1, 'c1'), ('acme/b', 0, '', 0, 'n2')`;
const ENTRIES = [
  ['acme/a', 'c1', '0', 'f'],
  ['acme/a', 'c2', '0', 'plain'],
  ['acme/a', 'c3', '1', LONG],
  ['acme/a', 'c4', '0', 'named'],
  ['acme/a', 'c5', '2', ''],
  ['acme/b', 'n1', '0', 'b'],
  ['acme/b', 'n3', '0', LONG],
  ['acme/c', 'x1', '0', 'x'],
];
const ENTRIES_SQL =
  'SELECT project_id, id, CAST(kind AS TEXT) AS k, name_key FROM call_trace_names ORDER BY project_id, id';
const FILLS_SQL =
  "SELECT project_id, filled_after FROM call_entry_fills WHERE entries = 'trace_names' ORDER BY project_id";
type Entry = { project_id: string; id: string; k: string; name_key: string };
const asTuples = (rows: Entry[]): string[][] => rows.map((r) => [r.project_id, r.id, r.k, r.name_key]);
const DONE = [
  { project_id: 'acme/a', filled_after: null },
  { project_id: 'acme/b', filled_after: null },
  { project_id: 'acme/c', filled_after: null },
];

async function indexAll(store: TraceStore): Promise<void> {
  while ((await store.callText.step()).project !== null);
}

test('migration 026 writes nothing; the indexer fills every call in (SQLite)', async (t) => {
  assert.ok(BEFORE_026 > 0);
  const file = tempSqliteFile(t);
  sqliteBeforeMigration(file, 26, CALLS);
  const store = new SqliteStore({ file });
  await store.migrate();
  withSqlite(file, (db) => assert.deepEqual(db.prepare(ENTRIES_SQL).all(), []));
  assert.equal(await fillDone(store, 'acme/a', 'trace_names'), false);
  await indexAll(store);
  assert.equal(await fillDone(store, 'acme/a', 'trace_names'), true);
  await store.close();
  withSqlite(file, (db) => {
    assert.deepEqual(asTuples(db.prepare(ENTRIES_SQL).all() as Entry[]), ENTRIES);
    assert.deepEqual(db.prepare(FILLS_SQL).all(), DONE);
  });
});

test('migration 026 writes nothing; the indexer fills every call in (PostgreSQL)', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await postgresBeforeMigration(url, 26, CALLS);
  const store = new PostgresStore({ url });
  await store.migrate();
  await withPostgres(url, async (c) => assert.deepEqual((await c.query(ENTRIES_SQL)).rows, []));
  await indexAll(store);
  assert.equal(await fillDone(store, 'acme/a', 'trace_names'), true);
  await store.close();
  await withPostgres(url, async (c) => {
    assert.deepEqual(asTuples((await c.query<Entry>(ENTRIES_SQL)).rows), ENTRIES);
    assert.deepEqual((await c.query(FILLS_SQL)).rows, DONE);
  });
});
