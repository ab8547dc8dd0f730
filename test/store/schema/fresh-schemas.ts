import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { compactParams } from '../../../src/store/postgres/pg-support.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { registerSqliteFunctions } from '../../../src/store/sqlite/sqlite-dialect.js';
import { MIGRATIONS, migrationSql } from '../../../src/store/sql/migrations/index.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { bindNamed } from '../../../src/store/sqlite/statements.js';
import type { TraceStore } from '../../../src/store/types.js';
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

/** A compiled statement whose plan a test reads. */
export type Compiled = { sql: string; params: unknown[] };

/** What PostgreSQL plan tests forbid on empty tables, so the plan shows what the indexes can give. */
export const FORBID_SCANS_AND_SORTS = 'SET enable_seqscan = off; SET enable_sort = off';

/** SQLite's plan of a compiled query, as its EXPLAIN QUERY PLAN lines, on a migrated empty store. */
export async function sqlitePlanner(t: Pick<TestContext, 'after'>): Promise<(c: Compiled) => string> {
  const file = tempSqliteFile(t);
  const store = new SqliteStore({ file });
  await store.migrate();
  await store.close();
  return (c) =>
    withSqlite(file, (db) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(bindNamed(c.params)) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n'),
    );
}

/**
 * PostgreSQL's plan of a compiled query on a migrated empty store, with `settings` (SET statements
 * forbidding the alternatives); null without a server.
 */
export async function postgresPlan(
  t: TestContext,
  c: Compiled,
  settings = FORBID_SCANS_AND_SORTS,
): Promise<string | null> {
  const url = await emptyPostgres(t);
  if (url === null) return null;
  const store = new PostgresStore({ url });
  await store.migrate();
  await store.close();
  return withPostgres(url, async (client) => {
    await client.query(settings);
    const { text, values } = compactParams(c.sql, c.params);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

/** How many entries of MIGRATIONS come before migration `id` (a release before it applied those). */
function before(id: number): number {
  const at = MIGRATIONS.findIndex((m) => m.id === id);
  if (at <= 0) throw new Error(`no migration before ${id}`);
  return at;
}

/** A SQLite file as a release before migration `id` left it, then `sql` run on it (the upgrade tests). */
export function sqliteBeforeMigration(file: string, id: number, sql: string): void {
  withSqlite(file, (db) => {
    const applied = MIGRATIONS.slice(0, before(id));
    for (const m of applied) for (const statement of migrationSql(m, 'sqlite')) db.exec(statement);
    db.pragma(`user_version = ${applied.at(-1)!.id}`);
    db.exec(sql);
  });
}

/** The same on PostgreSQL (an empty database at `url`), with the runner's record of what it applied. */
export async function postgresBeforeMigration(url: string, id: number, sql: string): Promise<void> {
  await withPostgres(url, async (c) => {
    await c.query(
      'CREATE TABLE heddle_schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const m of MIGRATIONS.slice(0, before(id))) {
      for (const statement of migrationSql(m, 'postgres')) await c.query(statement);
      await c.query('INSERT INTO heddle_schema_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
    }
    await c.query(sql);
  });
}

/**
 * The upgrade of `store` (not migrated yet) across a migration whose entries the call indexer fills in
 * the background (src/store/sql/call-indexes/entry-fills.ts): the upgrade writes none of them (`entries` reads
 * none), the fill `fill` of each project of `marked` (those with a mark of the indexer) is pending,
 * and once the indexer has caught up it is done. Closes the store; returns the entries then.
 */
export async function upgradeThenFill<T>(
  store: TraceStore,
  fill: string,
  marked: string[],
  entries: () => Promise<T[]>,
): Promise<T[]> {
  try {
    await store.migrate();
    assert.deepEqual(await entries(), []);
    for (const project of marked) assert.ok((await store.callText.pendingFills(project)).includes(fill), project);
    while ((await store.callText.step(3)).project !== null);
    for (const project of marked) assert.ok(!(await store.callText.pendingFills(project)).includes(fill), project);
    return await entries();
  } finally {
    await store.close();
  }
}

/** An upgrade across a migration whose entries are filled in the background (`upgradeThenFill`). */
export interface FillUpgrade {
  /** The migration's id: the stores are built as a release before it left them. */
  migration: number;
  /** What the test checks, after "migration N writes no … entry; the indexer fills them". */
  title: string;
  /** The fill's name in `call_entry_fills`. */
  fill: string;
  /** SQL run on the store before the upgrade (calls and the indexer's marks). */
  calls: string;
  /** The projects with a mark before the upgrade. */
  marked: string[];
  /** The entries, in a stable order, with the same column types on both stores (cast to text). */
  entriesSql: string;
  /** An entry row as a tuple. */
  row: (r: Record<string, unknown>) => unknown[];
  /** The entries once the indexer has caught up. */
  expected: unknown[][];
}

/** The SQLite and PostgreSQL tests of a `FillUpgrade`. */
export function fillUpgradeTests(u: FillUpgrade): void {
  const name = `migration ${String(u.migration).padStart(3, '0')} ${u.title}`;
  test(`${name} (SQLite)`, async (t) => {
    const file = tempSqliteFile(t);
    sqliteBeforeMigration(file, u.migration, u.calls);
    const entries = await upgradeThenFill(new SqliteStore({ file }), u.fill, u.marked, async () =>
      withSqlite(file, (db) => (db.prepare(u.entriesSql).all() as Record<string, unknown>[]).map(u.row)),
    );
    assert.deepEqual(entries, u.expected);
  });
  test(`${name} (PostgreSQL)`, async (t) => {
    const url = await emptyPostgres(t);
    if (url === null) return;
    await postgresBeforeMigration(url, u.migration, u.calls);
    const entries = await upgradeThenFill(new PostgresStore({ url }), u.fill, u.marked, () =>
      withPostgres(url, async (c) => (await c.query(u.entriesSql)).rows.map(u.row)),
    );
    assert.deepEqual(entries, u.expected);
  });
}
