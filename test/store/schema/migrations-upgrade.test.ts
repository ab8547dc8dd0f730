import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCallIndexBackfill } from '../../../src/services/call-indexes/backfill-job.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { MIGRATIONS, migrationSql } from '../../../src/store/sql/migrations/index.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import {
  emptyPostgres,
  freshSqliteSchema,
  migratedPostgresSchema,
  tempSqliteFile,
  withPostgres,
  withSqlite,
  postgresBeforeMigration,
  sqliteBeforeMigration,
  upgradeThenFill,
  fillUpgradeTests,
} from './fresh-schemas.js';
import { postgresSchema, sqliteSchema } from './introspect.js';

/**
 * Databases made by the per-store migration lists (before sql/migrations/) upgrade in place. The
 * old lists' SQL is the SQL of the shared list, moved verbatim (the old PostgreSQL version 1 is
 * now entries 1 and 2), so a database of each old version is built from the shared list's SQL and
 * the old runner's record: `user_version` on SQLite, rows of `heddle_migrations` on PostgreSQL.
 * Every statement is a plain CREATE, so a step applied twice would fail the upgrade.
 */

/** Old PostgreSQL version → entries of the shared list it had applied. */
const LEGACY_POSTGRES: [version: number, applied: number][] = [
  [1, 2],
  [2, 3],
  [3, 4],
  [4, 5],
  [5, 6],
];

const USER = `INSERT INTO users (id, username, default_entity, created_at) VALUES ('u1', 'legacy', 'acme', 1)`;
const CALL = `INSERT INTO calls (project_id, id, started_at) VALUES ('acme/legacy', 'c1', 1)`;
const MEMBERSHIP = `INSERT INTO entities (name, created_at) VALUES ('acme', 1); INSERT INTO memberships (user_id, entity) VALUES ('u1', 'acme')`;

test('SQLite files of every old user_version upgrade without re-running a step and keep their rows', async (t) => {
  const fresh = await freshSqliteSchema(t);
  for (let applied = 0; applied <= MIGRATIONS.length; applied += 1) {
    const file = tempSqliteFile(t);
    withSqlite(file, (db) => {
      for (const m of MIGRATIONS.slice(0, applied)) for (const sql of migrationSql(m, 'sqlite')) db.exec(sql);
      // the id of the last applied entry (ids may skip numbers on a branch, sqlite-migrate.ts)
      db.pragma(`user_version = ${MIGRATIONS[applied - 1]?.id ?? 0}`);
      if (applied > 0) db.exec(USER);
      // a role set before migration 12 rebuilt the table survives the rebuild
      if (MIGRATIONS.slice(0, applied).some((m) => m.name === 'membership-role'))
        db.exec(`${MEMBERSHIP}; UPDATE memberships SET role = 'admin'`);
    });
    for (let run = 0; run < 2; run += 1) {
      const store = new SqliteStore({ file });
      await store.migrate();
      await store.close();
    }
    withSqlite(file, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.id, `from version ${applied}`);
      assert.deepEqual(sqliteSchema(db), fresh, `schema from version ${applied}`);
      const users = db.prepare('SELECT username FROM users').pluck().all();
      assert.deepEqual(users, applied > 0 ? ['legacy'] : []);
      const roles = db.prepare('SELECT entity, role FROM memberships').all();
      if (MIGRATIONS.slice(0, applied).some((m) => m.name === 'membership-role'))
        assert.deepEqual(roles, [{ entity: 'acme', role: 'admin' }], `memberships from version ${applied}`);
    });
  }
});

test('PostgreSQL databases of every old heddle_migrations version upgrade to the shared log', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  const fresh = await migratedPostgresSchema(url);
  for (const [version, applied] of LEGACY_POSTGRES) {
    await withPostgres(url, async (c) => {
      await c.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      for (const m of MIGRATIONS.slice(0, applied)) for (const sql of migrationSql(m, 'postgres')) await c.query(sql);
      // the old runner's log, as postgres/migrations.ts created and filled it
      await c.query(`CREATE TABLE heddle_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      await c.query('INSERT INTO heddle_migrations (version) SELECT generate_series(1, $1::int)', [version]);
      await c.query(USER);
      await c.query(CALL);
    });
    // two nodes starting at once: the advisory lock lets one upgrade, the other then finds nothing to do
    const stores = [new PostgresStore({ url }), new PostgresStore({ url })];
    await Promise.all(stores.map((s) => s.migrate()));
    // with calls stored, migration 016 left the latency index to the background job; migration
    // 019 replaced it by call_latency, so neither builds it any more
    const latencyIndex = async (): Promise<unknown> =>
      withPostgres(url, async (c) => (await c.query(`SELECT to_regclass('calls_by_latency') AS i`)).rows[0].i);
    assert.equal(await latencyIndex(), null, `no latency index built by the migration from version ${version}`);
    await runCallIndexBackfill(stores[0]!.callIndexes, null);
    assert.equal(await latencyIndex(), null);
    await Promise.all(stores.map((s) => s.close()));
    await withPostgres(url, async (c) => {
      assert.deepEqual(await postgresSchema(c), fresh, `schema from version ${version}`);
      const log = await c.query<{ id: number; name: string }>(
        'SELECT id, name FROM heddle_schema_migrations ORDER BY id',
      );
      assert.deepEqual(
        log.rows,
        MIGRATIONS.map((m) => ({ id: m.id, name: m.name })),
      );
      const legacy = await c.query(`SELECT to_regclass('heddle_migrations') AS t`);
      assert.equal(legacy.rows[0].t, null, 'the old log is dropped');
      assert.deepEqual((await c.query('SELECT username FROM users')).rows, [{ username: 'legacy' }]);
    });
  }
});

test('a version the old PostgreSQL runner never wrote is refused, not guessed', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await withPostgres(url, async (c) => {
    await c.query('CREATE TABLE heddle_migrations (version integer PRIMARY KEY, applied_at timestamptz)');
    await c.query('INSERT INTO heddle_migrations (version) VALUES (1), (2), (3), (4), (5), (6)');
  });
  const store = new PostgresStore({ url });
  try {
    await assert.rejects(store.migrate());
  } finally {
    await store.close();
  }
});

test('a migration connection killed while it waits for the lock fails migrate(), not the process', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await withPostgres(url, async (holder) => {
    // the runner's advisory lock, held by another session so migrate() waits on its connection
    await holder.query('SELECT pg_advisory_lock(114384087786853)');
    const store = new PostgresStore({ url });
    try {
      const migrating = store.migrate();
      // it may fail while the kill below is still being answered: handled now, asserted below
      migrating.catch(() => undefined);
      const waiting = async (): Promise<number[]> => {
        const { rows } = await holder.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND wait_event_type = 'Lock'`,
        );
        return rows.map((r) => r.pid);
      };
      let pids = await waiting();
      for (let i = 0; pids.length === 0 && i < 100; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pids = await waiting();
      }
      assert.equal(pids.length, 1);
      await holder.query('SELECT pg_terminate_backend($1)', [pids[0]]);
      await assert.rejects(migrating);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      // closing may report the connection killed above; what counts is that migrate() failed and the process lives
      await store.close().catch(() => undefined);
    }
  });
});

/**
 * Migration 019 writes no `call_latency` entry and drops `calls_by_latency`: the call indexer fills
 * the entries of the calls at or below each project's mark in the background
 * (src/store/sql/call-indexes/entry-fills.ts) and writes those of the calls after it: a latency the backfill
 * of 016 has not set yet as it will set it, a NULL one under the largest 64-bit integer.
 */
const CALLS_018 = `INSERT INTO calls (project_id, id, started_at, ended_at, latency_ms, change_seq) VALUES
  ('acme/a', 'c1', 1000, 6000, 5, NULL), ('acme/a', 'c2', 1000, NULL, NULL, 5), ('acme/a', 'c3', 1000, 3999, NULL, 5),
  ('acme/a', 'c4', 1000, 9000, 8, 5), ('acme/a', 'c5', 1000, 9000, 8, 6), ('acme/a', 'c0', 5000, 1000, -4, 4),
  ('acme/b', 'n1', 1000, 2000, 1, NULL), ('acme/b', 'n3', 1000, 2000, 1, NULL), ('acme/b', 'n0', 1000, 2000, 1, 1),
  ('acme/c', 'x1', 1000, 2000, 1, 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 5, 'c3', 1, 'c1'), ('acme/b', 0, '', 0, 'n2')`;
const ENTRIES_019 = [
  ['acme/a', 'c0', '-4'],
  ['acme/a', 'c1', '5'],
  ['acme/a', 'c2', '9223372036854775807'],
  ['acme/a', 'c3', '2'],
  ['acme/a', 'c4', '8'],
  ['acme/a', 'c5', '8'],
  ['acme/b', 'n0', '1'],
  ['acme/b', 'n1', '1'],
  ['acme/b', 'n3', '1'],
  ['acme/c', 'x1', '1'],
];
/** The projects with a mark of the indexer before the upgrade: their fills are pending after it. */
const MARKED = ['acme/a', 'acme/b'];
const ENTRIES_SQL = 'SELECT project_id, id, CAST(latency_ms AS TEXT) AS l FROM call_latency ORDER BY project_id, id';

test('migration 019 writes no call_latency entry and drops calls_by_latency; the indexer fills them (SQLite)', async (t) => {
  const file = tempSqliteFile(t);
  sqliteBeforeMigration(file, 19, CALLS_018);
  const entries = await upgradeThenFill(new SqliteStore({ file }), 'latency', MARKED, async () =>
    withSqlite(file, (db) => db.prepare(ENTRIES_SQL).raw().all()),
  );
  assert.deepEqual(entries, ENTRIES_019);
  withSqlite(file, (db) =>
    assert.equal(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'calls_by_latency'`).get(), undefined),
  );
});

test('migration 019 writes no call_latency entry and drops calls_by_latency; the indexer fills them (PostgreSQL)', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  await postgresBeforeMigration(url, 19, CALLS_018);
  await withPostgres(url, async (c) =>
    assert.equal((await c.query(`SELECT to_regclass('calls_by_latency') AS i`)).rows[0].i, 'calls_by_latency'),
  );
  const entries = await upgradeThenFill(new PostgresStore({ url }), 'latency', MARKED, () =>
    withPostgres(url, async (c) => {
      const { rows } = await c.query<{ project_id: string; id: string; l: string }>(ENTRIES_SQL);
      return rows.map((r) => [r.project_id, r.id, r.l]);
    }),
  );
  assert.deepEqual(entries, ENTRIES_019);
  await withPostgres(url, async (c) =>
    assert.equal((await c.query(`SELECT to_regclass('calls_by_latency') AS i`)).rows[0].i, null),
  );
});

/**
 * Migration 020 writes no `call_status` entry either: the indexer fills them as 019's, for the started
 * calls, each with its derived status (an error count of descendants as a numeric string too) and
 * start; deleted calls keep theirs (queries skip them), calls without a start have none.
 */
const CALLS_019 = `INSERT INTO calls (project_id, id, started_at, ended_at, exception, summary, deleted_at, change_seq) VALUES
  ('acme/a', 'c1', 1000, 6000, NULL, '{}', NULL, NULL), ('acme/a', 'c2', 1000, NULL, NULL, NULL, NULL, 5),
  ('acme/a', 'c3', 2000, 3000, NULL, '{"status_counts":{"error":"2"}}', NULL, 5),
  ('acme/a', 'c4', 1000, 9000, 'late', '{}', NULL, 5), ('acme/a', 'c5', 1000, 9000, NULL, '{}', NULL, 6),
  ('acme/a', 'c0', 5000, 6000, 'boom', '{"status_counts":{"error":1}}', NULL, 4),
  ('acme/a', 'c6', NULL, 9000, NULL, '{}', NULL, 3),
  ('acme/a', 'c7', 1000, 2000, NULL, '{"status_counts":{"error":0}}', 7000, 3),
  ('acme/b', 'n1', 1000, 2000, NULL, '{}', NULL, NULL), ('acme/b', 'n3', 1000, 2000, NULL, '{}', NULL, NULL),
  ('acme/b', 'n0', 1000, 2000, NULL, '{}', NULL, 1), ('acme/c', 'x1', 1000, 2000, NULL, '{}', NULL, 1);
  INSERT INTO call_text_marks (project_id, indexed_seq, indexed_id, nulls_done, null_id) VALUES
  ('acme/a', 5, 'c3', 1, 'c1'), ('acme/b', 0, '', 0, 'n2')`;
const ENTRIES_020 = [
  ['acme/a', 'c0', 'error', '5000'],
  ['acme/a', 'c1', 'success', '1000'],
  ['acme/a', 'c2', 'running', '1000'],
  ['acme/a', 'c3', 'descendant_error', '2000'],
  ['acme/a', 'c4', 'error', '1000'],
  ['acme/a', 'c5', 'success', '1000'],
  ['acme/a', 'c7', 'success', '1000'],
  ['acme/b', 'n0', 'success', '1000'],
  ['acme/b', 'n1', 'success', '1000'],
  ['acme/b', 'n3', 'success', '1000'],
  ['acme/c', 'x1', 'success', '1000'],
];
const STATUS_SQL =
  'SELECT project_id, id, status, CAST(started_at AS TEXT) AS s FROM call_status ORDER BY project_id, id';

fillUpgradeTests({
  migration: 20,
  title: 'writes no call_status entry; the indexer fills them',
  fill: 'status',
  calls: CALLS_019,
  marked: MARKED,
  entriesSql: STATUS_SQL,
  row: (r) => [r.project_id, r.id, r.status, r.s],
  expected: ENTRIES_020,
});
