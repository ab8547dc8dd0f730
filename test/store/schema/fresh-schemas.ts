import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { registerSqliteFunctions } from '../../../src/store/sqlite/sqlite-dialect.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { testDatabase } from '../../helpers/postgres.js';
import { postgresSchema, sqliteSchema, type SchemaShape } from './introspect.js';

/** A SQLite file in a folder of its own, removed after the test. */
export function tempSqliteFile(t: Pick<TestContext, 'after'>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-schema-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'heddle.sqlite');
}

/**
 * Runs `body` on a plain connection to a SQLite file (outside any store), with the SQL functions
 * every store connection has (migration 020 and the status expression call one).
 */
export function withSqlite<T>(file: string, body: (db: Database.Database) => T): T {
  const db = new Database(file);
  registerSqliteFunctions(db);
  try {
    return body(db);
  } finally {
    db.close();
  }
}

/** The schema a fresh SQLite store migrates to. */
export async function freshSqliteSchema(t: Pick<TestContext, 'after'>): Promise<SchemaShape> {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  await store.close();
  return withSqlite(file, sqliteSchema);
}

/**
 * An empty PostgreSQL database of this test's own: the test helpers reuse databases within a file
 * (emptied of rows, tables kept), so the schema is dropped and made again. Null when skipped.
 */
export async function emptyPostgres(t: TestContext): Promise<string | null> {
  const url = await testDatabase(t);
  if (url === null) return null;
  await withPostgres(url, (c) => c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
  return url;
}

/** Runs `body` on a plain connection to a PostgreSQL database (outside any store). */
export async function withPostgres<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** Migrates a fresh PostgreSQL store on `url` and reads back its schema. */
export async function migratedPostgresSchema(url: string): Promise<SchemaShape> {
  const store = new PostgresStore({ url });
  await store.migrate();
  await store.close();
  return withPostgres(url, postgresSchema);
}
