import { randomBytes } from 'node:crypto';
import { after, type TestContext } from 'node:test';
import pg from 'pg';
import { DB_PREFIX, ensurePostgres } from './postgres-server.js';
import {
  citusUrl,
  cloneCitusDatabase,
  createCitusDatabase,
  dropCitusDatabase,
  isCitusTemplate,
  sealCitusTemplate,
  withDatabase,
} from './citus.js';
import { withFileLock } from './file-lock.js';
import { writeThenDistribute } from './citus-database.js';

export { ensurePostgres, isCi } from './postgres-server.js';

/**
 * Databases for tests on PostgreSQL (the server comes from postgres-server.ts): each test app or
 * suite gets a database of its own, and nothing of one app is visible to the next.
 */

let admin: pg.Pool | undefined;

export interface TestDatabase {
  url: string;
  name: string;
  /**
   * Hands the database back once nothing is connected to it any more. It is emptied and reused
   * by a later test of the same file, and dropped when the file's tests end.
   */
  release(): Promise<void>;
}

/** Databases of this process: free ones wait for reuse; all are dropped after the file's last test. */
const created: string[] = [];
const free: string[] = [];

/**
 * Creating and dropping a database costs about a second on a busy machine (DROP DATABASE waits
 * for a checkpoint), and the HTTP suite builds well over a hundred apps: a database is made once
 * per test file and emptied between apps instead (TRUNCATE … RESTART IDENTITY leaves nothing of
 * the previous app, not even sequence positions).
 */
after(async () => {
  if (!admin) return;
  const pool = admin;
  admin = undefined;
  free.length = 0;
  for (const name of created.splice(0))
    await dropDatabase(pool, name).catch((error: unknown) =>
      process.stderr.write(`could not drop ${name}: ${String(error)}\n`),
    );
  await pool.end();
});

/**
 * A UTF-8 database of its own, fresh or emptied; throws when no server can be had. With
 * `HEDDLE_TEST_CITUS_URL` (scripts/test.sh's Citus pass) it is a database of that Citus cluster,
 * migrated, given calls, distributed by `heddle db distribute` and emptied again
 * (citus-database.ts writeThenDistribute), so every test runs on sharded tables.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const citus = citusUrl();
  if (citus !== undefined) return createDistributedDatabase(citus);
  const adminUrl = await ensurePostgres();
  if (adminUrl === null)
    throw new Error('PostgreSQL is not available (set HEDDLE_TEST_POSTGRES_URL or install postgresql)');
  admin ??= new pg.Pool({ connectionString: adminUrl, max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true });
  const urlOf = (name: string): string => {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  };
  let name = free.pop();
  if (name !== undefined) {
    await emptyDatabase(urlOf(name));
  } else {
    name = `${DB_PREFIX}${Date.now().toString(36)}_${process.pid}_${randomBytes(4).toString('hex')}`;
    // template0 + C locale: independent of how the cluster was initialised; the schema itself asks
    // for COLLATE "C" and Unicode collations where it needs them
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    created.push(name);
  }
  const own = name;
  let released = false;
  return {
    url: urlOf(own),
    name: own,
    release: async () => {
      if (released) return;
      released = true;
      free.push(own);
    },
  };
}

/** Citus databases of this process (see createTestDatabase); each dropped on every node after the file's last test. */
const citusCreated: string[] = [];
const citusFree: string[] = [];

after(async () => {
  const coordinator = citusUrl();
  if (coordinator === undefined) return;
  citusFree.length = 0;
  for (const name of citusCreated.splice(0))
    await dropCitusDatabase(coordinator, name).catch((error: unknown) =>
      process.stderr.write(`could not drop ${name}: ${String(error)}\n`),
    );
});

/**
 * The distributed database every Citus test database is a copy of, made once per cluster by the
 * first test process that needs it: migrated, given calls, distributed by `heddle db distribute`
 * and emptied (writing and distributing takes about 10 s; a copy on three nodes well under one).
 */
async function citusTemplate(coordinator: string): Promise<string> {
  const name = `heddle_template_${new URL(coordinator).port}`;
  return withFileLock(`heddle-citus-template-${new URL(coordinator).port}`, async () => {
    if (await isCitusTemplate(coordinator, name)) return name;
    await dropCitusDatabase(coordinator, name);
    await createCitusDatabase(coordinator, name);
    await writeThenDistribute(withDatabase(coordinator, name));
    await emptyDatabase(withDatabase(coordinator, name), true);
    await sealCitusTemplate(coordinator, name);
    return name;
  });
}

async function createDistributedDatabase(coordinator: string): Promise<TestDatabase> {
  let name = citusFree.pop();
  if (name !== undefined) {
    await emptyDatabase(withDatabase(coordinator, name), true);
  } else {
    name = `${DB_PREFIX}${Date.now().toString(36)}_${process.pid}_${randomBytes(4).toString('hex')}`;
    await cloneCitusDatabase(coordinator, await citusTemplate(coordinator), name);
    citusCreated.push(name);
  }
  const own = name;
  let released = false;
  return {
    url: withDatabase(coordinator, own),
    name: own,
    release: async () => {
      if (released) return;
      released = true;
      citusFree.push(own);
    },
  };
}

/**
 * Deletes every row of every table but the migration log, restarts the sequences and puts back the
 * rows the migrations seed, as a fresh database has them. DELETE, not
 * TRUNCATE: test tables hold a handful of rows, and TRUNCATE creates and syncs new files.
 */
async function emptyDatabase(url: string, citus = false): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Citus refuses a reference table's write after a parallel write to a distributed table in one transaction
    if (citus) await client.query(`SET citus.multi_shard_modify_mode TO 'sequential'`);
    await client.query(`DO $$
      DECLARE r record;
      BEGIN
        -- tables holding foreign keys first, so no row is deleted while another still points at it
        FOR r IN SELECT t.tablename FROM pg_tables t WHERE t.schemaname = current_schema() AND t.tablename <> 'heddle_schema_migrations'
                 ORDER BY (SELECT count(*) FROM pg_constraint c WHERE c.conrelid = format('%I', t.tablename)::regclass AND c.contype = 'f') DESC LOOP
          EXECUTE format('DELETE FROM %I', r.tablename);
        END LOOP;
        -- (Citus cannot alter a distributed table's sequence: positions stay, on sharded tables only)
        FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema() AND ${citus ? 'FALSE' : 'TRUE'} LOOP
          EXECUTE format('ALTER SEQUENCE %I RESTART', r.sequencename);
        END LOOP;
        -- the row migration 015 seeds: a database without calls has a complete roll-up
        IF to_regclass('call_rollup_state') IS NOT NULL THEN
          INSERT INTO call_rollup_state (name, complete, updated_at) VALUES ('calls_hourly', 1, 0);
        END IF;
      END $$`);
  } finally {
    await client.end();
  }
}

/**
 * Drops a test database once its users have disconnected. FORCE (which ends leftover sessions)
 * needs pg_signal_backend for sessions of other roles, such as an autovacuum worker, so a plain
 * DROP comes first; the server itself waits a few seconds for such sessions to go.
 */
async function dropDatabase(pool: pg.Pool, name: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await pool.query(
        attempt < 3 ? `DROP DATABASE IF EXISTS ${name}` : `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`,
      );
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** A database of its own for this test; null (the test skipped) when PostgreSQL cannot be had outside CI. */
export async function testDatabase(t: Pick<TestContext, 'after' | 'skip'>): Promise<string | null> {
  if ((await ensurePostgres()) === null) {
    t.skip('PostgreSQL is not available');
    return null;
  }
  const db = await createTestDatabase();
  t.after(() => db.release());
  return db.url;
}
