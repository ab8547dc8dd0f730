import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * The shape of a store's schema, read back from the database itself, in a form both dialects
 * share: tables, columns (name, normalised type, nullability), primary keys, unique constraints
 * and indexes (name, columns, uniqueness). Used by the schema-equality and upgrade tests.
 */
export interface SchemaShape {
  tables: Record<string, TableShape>;
}

export interface TableShape {
  columns: { name: string; type: string; nullable: boolean }[];
  primaryKey: string[];
  /** Column lists of UNIQUE constraints declared inline (`username TEXT UNIQUE`), sorted. */
  uniques: string[][];
  /** Indexes made by CREATE INDEX, by name. */
  indexes: Record<string, { columns: string[]; unique: boolean }>;
}

/** Tables that record applied migrations: bookkeeping of the runner, not part of the schema. */
export const BOOKKEEPING_TABLES = new Set(['heddle_schema_migrations', 'heddle_migrations']);

/** SQLite's type affinity rules (https://www.sqlite.org/datatype3.html §3.1) for a declared type. */
export function sqliteAffinity(declared: string): string {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'INTEGER';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'TEXT';
  if (t === '' || t.includes('BLOB')) return 'BLOB';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

/**
 * PostgreSQL types onto the SQLite affinity that stores the same values: JSON is text in SQLite,
 * booleans are 0/1 integers there.
 */
const POSTGRES_TYPES: Record<string, string> = {
  text: 'TEXT',
  jsonb: 'TEXT',
  bigint: 'INTEGER',
  integer: 'INTEGER',
  smallint: 'INTEGER',
  boolean: 'INTEGER',
  'double precision': 'REAL',
  bytea: 'BLOB',
};

export function postgresAffinity(dataType: string): string {
  const mapped = POSTGRES_TYPES[dataType];
  if (mapped === undefined) throw new Error(`no SQLite counterpart listed for PostgreSQL type ${dataType}`);
  return mapped;
}

export function sqliteSchema(db: Database.Database): SchemaShape {
  const tables: Record<string, TableShape> = {};
  const names = db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
  for (const table of names) {
    if (BOOKKEEPING_TABLES.has(table)) continue;
    const cols = db.prepare('SELECT name, type, "notnull", pk FROM pragma_table_xinfo(?) ORDER BY cid').all(table) as {
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }[];
    const shape: TableShape = {
      // a PRIMARY KEY column is NOT NULL in PostgreSQL; SQLite's is only by convention
      columns: cols.map((c) => ({
        name: c.name,
        type: sqliteAffinity(c.type),
        nullable: c.notnull === 0 && c.pk === 0,
      })),
      primaryKey: cols
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      uniques: [],
      indexes: {},
    };
    const indexes = db.prepare('SELECT name, "unique", origin FROM pragma_index_list(?)').all(table) as {
      name: string;
      unique: number;
      origin: string;
    }[];
    for (const index of indexes) {
      const columns = db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(index.name) as (
        string | null
      )[];
      const named = columns.map((c) => c ?? '<expression>');
      if (index.origin === 'pk') continue;
      if (index.origin === 'u') shape.uniques.push(named);
      else shape.indexes[index.name] = { columns: named, unique: index.unique === 1 };
    }
    shape.uniques.sort();
    tables[table] = shape;
  }
  return { tables };
}

export async function postgresSchema(client: pg.ClientBase): Promise<SchemaShape> {
  const tables: Record<string, TableShape> = {};
  const { rows: cols } = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  for (const c of cols) {
    if (BOOKKEEPING_TABLES.has(c.table_name)) continue;
    const shape = (tables[c.table_name] ??= { columns: [], primaryKey: [], uniques: [], indexes: {} });
    shape.columns.push({ name: c.column_name, type: postgresAffinity(c.data_type), nullable: c.is_nullable === 'YES' });
  }
  const { rows: indexes } = await client.query<{
    table_name: string;
    index_name: string;
    is_unique: boolean;
    is_primary: boolean;
    constraint_type: string | null;
    columns: string[];
  }>(
    `SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique AS is_unique, x.indisprimary AS is_primary,
            (SELECT c.contype::text FROM pg_constraint c WHERE c.conindid = x.indexrelid LIMIT 1) AS constraint_type,
            ARRAY(SELECT CASE WHEN x.indkey[k - 1] = 0 THEN '<expression>' ELSE pg_get_indexdef(x.indexrelid, k, true) END
                  FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns
     FROM pg_index x
     JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = current_schema()`,
  );
  for (const index of indexes) {
    const shape = tables[index.table_name];
    if (!shape) continue;
    if (index.is_primary) shape.primaryKey = index.columns;
    else if (index.constraint_type === 'u') shape.uniques.push(index.columns);
    else shape.indexes[index.index_name] = { columns: index.columns, unique: index.is_unique };
  }
  for (const shape of Object.values(tables)) shape.uniques.sort();
  return { tables };
}
