import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type pg from 'pg';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { PROJECT_TABLES } from '../../../src/store/sql/project-tables.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { TraceStore } from '../../../src/store/types.js';
import { emptyPostgres, tempSqliteFile, withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * Project deletion covers every per-project table (docs/export.md "Project deletion"). The tables are
 * read from the migrated schema itself: every table with a `project_id` column gets rows of two
 * projects (filled generically from the column types), one project is deleted, and every such table
 * must then hold none of its rows and all of the other's. A migration adding a per-project table
 * fails here until the table is listed in src/store/sql/project-tables.ts.
 */

const GONE = 'acme/gone';
const KEPT = 'acme/kept';

interface Column {
  name: string;
  type: 'text' | 'json' | 'int' | 'bool' | 'real' | 'blob';
}

/** A value for a column of row `n` (unique per row, so keys never collide). */
function value(column: Column, projectId: string, n: number): unknown {
  if (column.name === 'project_id') return projectId;
  switch (column.type) {
    case 'int':
      return n;
    case 'bool':
      return 1;
    case 'real':
      return n + 0.5;
    case 'blob':
      return Buffer.from([n]);
    case 'json':
      return JSON.stringify(`${column.name}-${projectId}-${n}`);
    default:
      return `${column.name}-${projectId}-${n}`;
  }
}

interface Db {
  /** Required columns (NOT NULL, no default) of every table with a project_id column. */
  projectTables(): Promise<Map<string, Column[]>>;
  insert(table: string, row: Record<string, unknown>): Promise<void>;
}

function sqliteType(declared: string): Column['type'] {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'int';
  if (t.includes('BLOB')) return 'blob';
  if (t.includes('REAL') || t.includes('DOUB')) return 'real';
  return 'text';
}

function sqliteDb(file: string): Db {
  return {
    projectTables: async () =>
      withSqlite(file, (db) => {
        const out = new Map<string, Column[]>();
        const tables = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all() as string[];
        for (const table of tables) {
          const cols = db
            .prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
            .all(table) as {
            name: string;
            type: string;
            notnull: number;
            dflt_value: unknown;
            pk: number;
          }[];
          if (!cols.some((c) => c.name === 'project_id')) continue;
          const required = cols.filter((c) => (c.notnull === 1 || c.pk > 0) && c.dflt_value === null);
          out.set(
            table,
            required.map((c) => ({ name: c.name, type: sqliteType(c.type) })),
          );
        }
        return out;
      }),
    insert: async (table, row) =>
      withSqlite(file, (db) => {
        const names = Object.keys(row);
        db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
          ...Object.values(row),
        );
      }),
  };
}

const PG_TYPES: Record<string, Column['type']> = {
  text: 'text',
  jsonb: 'json',
  bigint: 'int',
  integer: 'int',
  smallint: 'int',
  boolean: 'bool',
  'double precision': 'real',
  bytea: 'blob',
};

function postgresDb(url: string): Db {
  return {
    projectTables: () =>
      withPostgres(url, async (c: pg.Client) => {
        const { rows } = await c.query<{
          table_name: string;
          column_name: string;
          data_type: string;
          required: boolean;
        }>(
          `SELECT table_name, column_name, data_type,
                  (is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO' AND is_generated = 'NEVER') AS required
           FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
        );
        const withProject = new Set(rows.filter((r) => r.column_name === 'project_id').map((r) => r.table_name));
        const out = new Map<string, Column[]>();
        for (const r of rows) {
          if (!withProject.has(r.table_name) || !r.required) continue;
          const type = PG_TYPES[r.data_type];
          assert.ok(type, `no test value for PostgreSQL type ${r.data_type}`);
          out.set(r.table_name, [...(out.get(r.table_name) ?? []), { name: r.column_name, type }]);
        }
        return out;
      }),
    insert: (table, row) =>
      withPostgres(url, async (c) => {
        const names = Object.keys(row);
        await c.query(
          `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(row),
        );
      }),
  };
}

async function check(db: Db, store: TraceStore): Promise<void> {
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
  await check(sqliteDb(file), store);
});

test('PostgreSQL: deleting a project empties every per-project table of it and only of it', async (t: TestContext) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  const store = new PostgresStore({ url });
  await store.migrate();
  t.after(() => store.close());
  await check(postgresDb(url), store);
});
