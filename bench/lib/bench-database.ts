import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensurePostgres } from '../../test/helpers/postgres-server.js';

/** A fresh PostgreSQL database for one benchmark run, on the server test/helpers/postgres-server.ts has. */
export interface BenchDatabase {
  name: string;
  url: string;
  /** One statement as the server's admin role (outside the database: sizes, statistics). */
  adminQuery<R extends pg.QueryResultRow>(sql: string): Promise<R[]>;
  drop(): Promise<void>;
}

/** Creates `heddle_bench_<prefix>_<random>`; null when no PostgreSQL can be had. */
export async function freshPostgresDatabase(prefix: string): Promise<BenchDatabase | null> {
  const admin = await ensurePostgres();
  if (admin === null) return null;
  const name = `heddle_bench_${prefix}_${randomBytes(4).toString('hex')}`;
  const adminQuery = async <R extends pg.QueryResultRow>(sql: string): Promise<R[]> => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      return (await c.query<R>(sql)).rows;
    } finally {
      await c.end();
    }
  };
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    adminQuery,
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined),
  };
}
