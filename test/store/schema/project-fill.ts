import assert from 'node:assert/strict';
import type pg from 'pg';
import { withPostgres, withSqlite } from './fresh-schemas.js';

/**
 * Fills every table with a `project_id` column generically, from the migrated schema itself
 * (test/store/schema/project-delete.test.ts, project-transfer.test.ts): the required columns of each
 * get a value of their type, unique per row.
 */

export interface Column {
  name: string;
  type: 'text' | 'json' | 'int' | 'bool' | 'real' | 'blob';
}

/** A value for a column of row `n` (unique per row, so keys never collide). */
export function value(column: Column, projectId: string, n: number): unknown {
  if (column.name === 'project_id') return projectId;
  // call_rollup_pending (PostgreSQL): JSON arrays of roll-up rows, which a fold or an export reads
  if (column.name === 'stats' || column.name === 'hist') return '[]';
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

export interface Db {
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

export function sqliteDb(file: string): Db {
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

export function postgresDb(url: string): Db {
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
