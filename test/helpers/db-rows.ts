import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../../src/config/config.js';
import { REPO_ROOT } from './server-process.js';

/**
 * Raw reads of a test app's database on a connection of its own (so they see exactly what was
 * committed), for tests that check what a request did or did not write. Works on both stores:
 * the SQLite file in the data dir, or the PostgreSQL database of HEDDLE_DATABASE_URL.
 *
 * Synchronous like the SQLite reads the tests were written with: on PostgreSQL the read runs in
 * a short child process (the driver has no synchronous API).
 */

type HasConfig = { config: Pick<Config, 'dataDir' | 'databaseUrl'> };
export interface TableDump {
  table: string;
  /** Rows as text, in a stable order. */
  rows: string[];
}

/** Every table with its rows, tables by name. */
export function dumpTables(h: HasConfig): TableDump[] {
  if (h.config.databaseUrl) return JSON.parse(runPg(h.config.databaseUrl, 'dump', '')) as TableDump[];
  return withSqlite(h, (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    return tables.map(({ name }) => ({
      table: name,
      rows: (db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all() as unknown[]).map((row) =>
        JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      ),
    }));
  });
}

/** The number of rows of one table. */
export function countRows(h: HasConfig, table: string): number {
  if (h.config.databaseUrl) return Number(runPg(h.config.databaseUrl, 'count', table));
  return withSqlite(
    h,
    (db) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table.replace(/"/g, '""')}"`).get() as { n: number }).n,
  );
}

function withSqlite<T>(h: HasConfig, work: (db: Database.Database) => T): T {
  const db = new Database(path.join(h.config.dataDir, 'heddle.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Plain CommonJS run by `node -e` (no TypeScript loader: it starts in a fraction of a second). */
const PG_SCRIPT = `
const pg = require('pg');
const [url, mode, table] = process.argv.slice(1);
(async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    if (mode === 'count') {
      const { rows } = await client.query('SELECT count(*) AS n FROM ' + pg.escapeIdentifier(table));
      process.stdout.write(String(rows[0].n));
      return;
    }
    const tables = await client.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
    const out = [];
    for (const { name } of tables.rows) {
      const rows = await client.query('SELECT t::text AS row FROM ' + pg.escapeIdentifier(name) + ' t ORDER BY 1');
      out.push({ table: name, rows: rows.rows.map((r) => r.row) });
    }
    process.stdout.write(JSON.stringify(out));
  } finally {
    await client.end();
  }
})().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

function runPg(url: string, mode: 'dump' | 'count', table: string): string {
  return execFileSync(process.execPath, ['-e', PG_SCRIPT, url, mode, table], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 256 * 1024 * 1024,
  });
}
