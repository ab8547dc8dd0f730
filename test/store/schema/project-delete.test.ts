import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { projectTables } from '../../../src/store/sql/project-tables.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { emptyPostgres, tempSqliteFile } from './fresh-schemas.js';
import { postgresDb, sqliteDb, value, type Db } from './project-fill.js';

/**
 * Project deletion covers every per-project table (docs/export.md "Project deletion"). The tables are
 * read from the migrated schema itself: every table with a `project_id` column gets rows of two
 * projects (filled generically from the column types), one project is deleted, and every such table
 * must then hold none of its rows and all of the other's. A migration adding a per-project table
 * fails here until the table is listed in src/store/sql/project-tables.ts.
 */

const GONE = 'acme/gone';
const KEPT = 'acme/kept';

async function check(db: Db, store: TraceStore, kind: 'sqlite' | 'postgres'): Promise<void> {
  const PROJECT_TABLES = projectTables(kind);
  const tables = await db.projectTables();
  assert.deepEqual(
    [...tables.keys()].sort(),
    PROJECT_TABLES.map((t) => t.table).sort(),
    'every table with a project_id column must be in PROJECT_TABLES (src/store/sql/project-tables.ts), and only those',
  );
  // a table keyed by project_id alone (`projects`, `retention_policies`) has one row per project;
  // 3 rows elsewhere, more than a batch of 2
  const byProjectOnly = new Set(PROJECT_TABLES.filter((t) => t.key.join() === 'project_id').map((t) => t.table));
  const rowsOf = (table: string): number => (byProjectOnly.has(table) ? 1 : 3);
  let n = 0;
  for (const [table, columns] of tables) {
    for (const projectId of [GONE, KEPT]) {
      for (let i = 0; i < rowsOf(table); i++) {
        n += 1;
        await db.insert(table, Object.fromEntries(columns.map((c) => [c.name, value(c, projectId, n)])));
      }
    }
  }
  const keptBefore = await store.projectData.rowCounts(KEPT);
  const gone = await store.projectData.rowCounts(GONE);
  for (const table of tables.keys()) assert.equal(gone[table], rowsOf(table), table);
  // small batches, so that the loop over batches is exercised too
  const deleted = await store.projectData.deleteProject(GONE, { batchRows: 2 });
  for (const table of tables.keys()) assert.equal(deleted[table], rowsOf(table), table);
  const after = await store.projectData.rowCounts(GONE);
  for (const table of tables.keys()) assert.equal(after[table], 0, `${table} still has rows of ${GONE}`);
  assert.deepEqual(await store.projectData.rowCounts(KEPT), keptBefore);
  // repeating it is harmless
  const again = await store.projectData.deleteProject(GONE);
  assert.equal(
    Object.values(again).reduce((a, b) => a + b, 0),
    0,
  );
}

test('SQLite: deleting a project empties every per-project table of it and only of it', async (t) => {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  t.after(() => store.close());
  await check(sqliteDb(file), store, 'sqlite');
});

test('PostgreSQL: deleting a project empties every per-project table of it and only of it', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  const store = new PostgresStore({ url });
  await store.migrate();
  t.after(() => store.close());
  await check(postgresDb(url), store, 'postgres');
});
