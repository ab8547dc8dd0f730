import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { PROJECT_TABLES } from '../../../src/store/sql/project-tables.js';
import { DERIVED_TABLES } from '../../../src/store/sql/project-transfer.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { ProjectDumpRow, TraceStore } from '../../../src/store/types.js';
import { emptyPostgres, tempSqliteFile } from './fresh-schemas.js';
import { postgresDb, value, type Db } from './project-fill.js';

/**
 * The whole-project transfer covers every per-project table (docs/export.md "Whole-project export
 * and import"): every table with a `project_id` column is filled generically from the migrated
 * schema (two projects), one project is exported from PostgreSQL (filled there, where the schema
 * says which columns hold JSON), imported into SQLite, exported there, imported into a second
 * PostgreSQL database; the three exports hold the same rows, and the other project never travels.
 * test/routes/project-transfer.test.ts moves real data written through the API the other way.
 */

const MOVED = 'acme/moved';
const OTHER = 'acme/other';
const byProjectOnly = new Set(PROJECT_TABLES.filter((t) => t.key.join() === 'project_id').map((t) => t.table));

async function fill(db: Db): Promise<void> {
  let n = 0;
  for (const [table, columns] of await db.projectTables()) {
    for (const projectId of [MOVED, OTHER]) {
      for (let i = 0; i < (byProjectOnly.has(table) ? 1 : 3); i++) {
        n += 1;
        await db.insert(table, Object.fromEntries(columns.map((c) => [c.name, value(c, projectId, n)])));
      }
    }
  }
}

async function dump(store: TraceStore): Promise<ProjectDumpRow[]> {
  const rows: ProjectDumpRow[] = [];
  for await (const row of store.projectData.exportRows(MOVED)) rows.push(row);
  return rows;
}

async function* replay(rows: ProjectDumpRow[]): AsyncGenerator<ProjectDumpRow> {
  for (const row of rows) yield { table: row.table, row: { ...row.row } };
}

/** Rows per table, each as sorted JSON text (Buffers as hex), for an order-free comparison. */
function canonical(rows: ProjectDumpRow[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { table, row } of rows) {
    const plain = Object.fromEntries(
      Object.entries(row)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, Buffer.isBuffer(v) ? `bytes:${v.toString('hex')}` : v])
        .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)),
    );
    (out[table] ??= []).push(JSON.stringify(plain));
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

async function openSqlite(t: TestContext): Promise<SqliteStore> {
  const store = new SqliteStore({ file: tempSqliteFile(t) });
  await store.migrate();
  t.after(() => store.close());
  return store;
}

async function openPostgres(t: TestContext): Promise<{ store: PostgresStore; url: string } | null> {
  const url = await emptyPostgres(t);
  if (url === null) return null;
  const store = new PostgresStore({ url });
  await store.migrate();
  t.after(() => store.close());
  return { store, url };
}

test('a project moves PostgreSQL → SQLite → PostgreSQL with every row of every per-project table', async (t) => {
  const source = await openPostgres(t);
  if (source === null) return;
  await fill(postgresDb(source.url));
  const first = await dump(source.store);
  assert.deepEqual(
    [...new Set(first.map((r) => r.table))].sort(),
    PROJECT_TABLES.map((p) => p.table)
      .filter((table) => !DERIVED_TABLES.has(table))
      .sort(),
    'the export holds every per-project table but the derived ones',
  );
  assert.equal(first[0]?.table, 'projects', 'the projects row comes first');
  assert.ok(first.every((r) => r.row.project_id === MOVED));
  assert.ok(
    first.every((r) => !('change_seq' in r.row) && !('seq' in r.row && r.table === 'calls')),
    'store-local columns stay home',
  );

  const sqlite = await openSqlite(t);
  const imported = await sqlite.projectData.importRows(MOVED, replay(first));
  for (const { table } of PROJECT_TABLES.filter((p) => !DERIVED_TABLES.has(p.table)))
    assert.equal(imported[table], byProjectOnly.has(table) ? 1 : 3, `rows of ${table} imported`);
  const second = await dump(sqlite);
  assert.deepEqual(canonical(second), canonical(first));
  assert.equal((await sqlite.projectData.rowCounts(OTHER)).calls, 0, 'the other project did not travel');

  const back = await openPostgres(t);
  assert.ok(back);
  await back.store.projectData.importRows(MOVED, replay(second));
  assert.deepEqual(canonical(await dump(back.store)), canonical(first));
});

test('an import refuses rows of another project, unknown tables and unknown columns', async (t) => {
  const store = await openSqlite(t);
  const one = (table: string, row: Record<string, unknown>) => replay([{ table, row }]);
  await assert.rejects(
    store.projectData.importRows(MOVED, one('calls', { project_id: OTHER, id: 'x' })),
    /belongs to acme\/other/,
  );
  await assert.rejects(
    store.projectData.importRows(MOVED, one('users', { project_id: MOVED, id: 'x' })),
    /Unknown per-project table users/,
  );
  await assert.rejects(
    store.projectData.importRows(MOVED, one('calls', { project_id: MOVED, id: 'x', nope: 1 })),
    /has no column nope/,
  );
  assert.equal((await store.projectData.rowCounts(MOVED)).calls, 0);
});
