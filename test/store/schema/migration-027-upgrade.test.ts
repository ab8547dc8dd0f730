import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { emptyPostgres, tempSqliteFile, postgresBeforeMigration, sqliteBeforeMigration } from './fresh-schemas.js';

/**
 * Migration 027 on a store that the released migrations 019–022 upgraded, which wrote their entries
 * for every call at or below each mark (`acme/a` here): its fills of those entries are recorded done,
 * so its walks read them at once, with no second pass. A marked project without such entries
 * (`acme/b`, whose calls came after its mark) and one without a mark (`acme/c`) get no row: the
 * first is filled, the second's mark will start complete. The fills of 025, 026 and 028–030 are left as
 * they were.
 */
const EARLY_FILLS = ['latency', 'status', 'display', 'tokens'];
const STORE_OF_RELEASED_022 = `INSERT INTO calls (project_id, id, started_at, ended_at, change_seq) VALUES
  ('acme/a', 'c1', 1000, 2000, 1), ('acme/a', 'c2', 1000, NULL, 2), ('acme/b', 'n1', 1000, 2000, 7),
  ('acme/c', 'x1', 1000, 2000, 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 2, 'c2', 1, ''), ('acme/b', 3, 'm', 1, '');
  INSERT INTO call_latency (project_id, latency_ms, id) VALUES ('acme/a', 1, 'c1'), ('acme/a', 9223372036854775807, 'c2');
  INSERT INTO call_status (project_id, status, started_at, id) VALUES ('acme/a', 'success', 1000, 'c1'),
  ('acme/a', 'running', 1000, 'c2');
  INSERT INTO call_display (project_id, kind, display_key, id) VALUES ('acme/a', 2, '', 'c1'), ('acme/a', 2, '', 'c2');
  INSERT INTO call_tokens (project_id, is_null, tokens, id) VALUES ('acme/a', 1, 0, 'c1'), ('acme/a', 1, 0, 'c2')`;

async function reconciled(store: TraceStore): Promise<void> {
  try {
    await store.migrate();
    assert.deepEqual(await store.callText.pendingFills('acme/a'), [
      'token_roots',
      'trace_names',
      'latency_roots',
      'op_names',
      'status_roots',
      'output_values',
      'attribute_values',
    ]);
    assert.deepEqual(
      (await store.callText.pendingFills('acme/b')).filter((fill) => EARLY_FILLS.includes(fill)),
      EARLY_FILLS,
    );
    assert.equal(await store.callText.covers('acme/c'), false);
    while ((await store.callText.step(3)).project !== null);
    for (const project of ['acme/a', 'acme/b', 'acme/c'])
      assert.deepEqual(await store.callText.pendingFills(project), [], project);
  } finally {
    await store.close();
  }
}

test('migration 027 records the fills of a store that the released 019–022 filled (SQLite)', async (t) => {
  const file = tempSqliteFile(t);
  sqliteBeforeMigration(file, 27, STORE_OF_RELEASED_022);
  await reconciled(new SqliteStore({ file }));
});

test('migration 027 records the fills of a store that the released 019–022 filled (PostgreSQL)', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await postgresBeforeMigration(url, 27, STORE_OF_RELEASED_022);
  await reconciled(new PostgresStore({ url }));
});
