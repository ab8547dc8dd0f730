import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { runMigrations } from '../../src/store/postgres/postgres-migrate.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { MIGRATIONS, type Migration } from '../../src/store/sql/migrations/index.js';
import type { CallsQuery } from '../../src/store/types.js';
import {
  addCitus,
  citusUrl,
  createCitusDatabase,
  dropCitusDatabase,
  startCitusCluster,
  withDatabase,
  type CitusCluster,
} from '../helpers/citus.js';
import { callParts, runDbDistribute } from '../helpers/citus-database.js';
import { until } from '../helpers/until.js';
import { ids, where } from '../store/contract/parts.js';

/**
 * Heddle on a real Citus cluster (a coordinator and two workers on loopback, test/helpers/citus.ts):
 * `heddle db distribute` on a database that holds data, again after a migration that ran on the
 * distributed database, and the background work (the roll-up fold, the call indexer) keeping up
 * with writes on sharded tables, its answers those of a scan. The cluster is scripts/test.sh's
 * (HEDDLE_TEST_CITUS_URL) or one started here.
 */

let cluster: CitusCluster | null = null;
let coordinator = '';
const databases: string[] = [];

before(async () => {
  const configured = citusUrl();
  if (configured !== undefined) coordinator = configured;
  else {
    cluster = await startCitusCluster();
    coordinator = cluster.url;
  }
});

after(async () => {
  for (const name of databases) await dropCitusDatabase(coordinator, name).catch(() => undefined);
  await cluster?.stop();
});

/** A new database on every node of the cluster (citus added, no Heddle schema yet). */
async function freshDatabase(opts: { citusLater?: boolean } = {}): Promise<string> {
  const name = `heddle_citus_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await createCitusDatabase(coordinator, name, opts);
  databases.push(name);
  return withDatabase(coordinator, name);
}

/** A fresh database given Heddle's schema, distributed by `heddle db distribute`, and a store open on it. */
async function distributedStore(): Promise<{ url: string; store: PostgresStore }> {
  const url = await freshDatabase();
  const seed = new PostgresStore({ url });
  await seed.migrate();
  await seed.close();
  await runDbDistribute(url);
  const store = new PostgresStore({ url });
  await store.migrate();
  return { url, store };
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** How Citus holds each table: 'h' distributed by hash, 'n' reference; absent: local to the coordinator. */
async function citusTables(url: string): Promise<Map<string, string>> {
  const rows = await query<{ name: string; method: string }>(
    url,
    `SELECT logicalrelid::regclass::text AS name, partmethod AS method FROM pg_dist_partition`,
  );
  return new Map(rows.map((r) => [r.name, r.method]));
}

const T0 = 1_700_000_000_000_000;
const HOUR = 3_600_000_000;

describe('heddle db distribute on Citus', () => {
  test('distributes a database holding calls, is idempotent, and takes up what a later migration adds', async () => {
    const url = await freshDatabase();
    const store = new PostgresStore({ url });
    await store.migrate();
    await store.calls.write(callParts('acme/before', 'c1', T0, 'moved over').slice(0, 1));
    await store.calls.write(callParts('acme/before', 'c1', T0, 'moved over').slice(1));
    await store.close();

    const first = await runDbDistribute(url);
    assert.match(first.stderr, /ran \d+ statements/);
    const tables = await citusTables(url);
    assert.equal(tables.get('calls'), 'h');
    assert.equal(tables.get('call_counts'), 'h');
    assert.equal(tables.get('projects'), 'n');
    assert.equal(tables.has('heddle_schema_migrations'), false);
    // the rows written before are on the shards, counted once
    assert.deepEqual(await query(url, `SELECT id FROM calls WHERE project_id = 'acme/before'`), [{ id: 'c1' }]);
    assert.deepEqual(
      await query(url, `SELECT sum(calls)::int AS n FROM call_counts WHERE project_id = 'acme/before'`),
      [{ n: 1 }],
    );
    const again = await runDbDistribute(url);
    assert.match(again.stderr, /ran 0 statements/);

    // a later release: a column and an index on the sharded calls, a new table filled from them
    const later: Migration = {
      id: MIGRATIONS.length + 1,
      name: 'test-later-release',
      sqlite: [],
      postgres: [
        `ALTER TABLE calls ADD COLUMN test_note text`,
        `CREATE INDEX calls_by_test_note ON calls (project_id, test_note)`,
        `UPDATE calls SET test_note = 'noted' WHERE started_at IS NOT NULL`,
        `CREATE TABLE test_notes (project_id text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL,
           note text NOT NULL, PRIMARY KEY (project_id, id))`,
        `INSERT INTO test_notes SELECT project_id, id, test_note FROM calls WHERE test_note IS NOT NULL`,
      ],
    };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await runMigrations(client, [...MIGRATIONS, later]);
      // the migration log names the step once; running the list again changes nothing
      await runMigrations(client, [...MIGRATIONS, later]);
    } finally {
      await client.end();
    }
    assert.deepEqual(await query(url, `SELECT test_note FROM calls WHERE project_id = 'acme/before'`), [
      { test_note: 'noted' },
    ]);
    assert.equal((await citusTables(url)).has('test_notes'), false);
    const upgrade = await runDbDistribute(url);
    assert.match(upgrade.stdout, /create_reference_table\('test_notes'\)/);
    assert.equal((await citusTables(url)).get('test_notes'), 'n');
    assert.deepEqual(await query(url, `SELECT note FROM test_notes`), [{ note: 'noted' }]);

    // the store still writes and reads on the upgraded, distributed database
    const reopened = new PostgresStore({ url });
    await reopened.migrate();
    try {
      await reopened.calls.write(callParts('acme/after', 'c2', T0, 'after the upgrade'));
      assert.equal((await reopened.calls.read('acme/after', 'c2'))?.ended_at, T0 + 1_500);
    } finally {
      await reopened.close();
    }
  });
});

describe('a single PostgreSQL database moved onto Citus', () => {
  test('made without citus, then given the extension and distributed: its functions reach the workers', async () => {
    const url = await freshDatabase({ citusLater: true });
    const store = new PostgresStore({ url });
    await store.migrate();
    const parts = ['alpha', 'beta', 'gamma'].map((w, i) => callParts('moved/one', `m${i}`, T0 + i, `${w} text`));
    await store.calls.write(parts.map((p) => p[0]!));
    await store.calls.write(parts.map((p) => p[1]!));
    await store.close();

    await addCitus(coordinator, new URL(url).pathname.slice(1));
    const run = await runDbDistribute(url);
    assert.match(run.stdout, /create_distributed_function\('heddle_call_text\(jsonb\)'\)/);
    const moved = new PostgresStore({ url });
    await moved.migrate();
    try {
      // the indexer's statements run on the workers, calling heddle_call_text there
      for (;;) if ((await moved.callText.step(50)).project === null) break;
      assert.equal(await moved.callText.covers('moved/one'), true);
      const q: CallsQuery = {
        project_id: 'moved/one',
        where: where({ $contains: { input: { $getField: 'inputs.prompt' }, substr: { $literal: 'beta' } } }),
      };
      assert.deepEqual(await ids(moved, q), ['m1']);
      assert.equal(Number((await moved.calls.count({ project_id: 'moved/one' })).count), 3);
    } finally {
      await moved.close();
    }
  });
});

describe('background work on Citus keeps up', () => {
  test('the roll-up fold and the call indexer answer as a scan of the sharded calls', async () => {
    const { url, store } = await distributedStore();
    store.startRollupFolds();
    const projects = ['k/one', 'k/two', 'k/three', 'k/four', 'k/five'];
    const words = ['amber', 'basalt', 'cobalt', 'dune', 'ember'];
    try {
      // starts and ends in separate writes, several projects per batch, over several hours
      for (let round = 0; round < 8; round += 1) {
        const batch = projects.flatMap((p, j) =>
          Array.from({ length: 5 }, (_, i) =>
            callParts(p, `r${round}-${i}`, T0 + (round * 5 + i) * (HOUR / 3), `${words[(i + j) % 5]} ${round}`),
          ),
        );
        await Promise.all([
          store.calls.write(batch.map((parts) => parts[0]!)),
          store.calls.write(projects.map((p) => callParts(p, `solo-${round}`, T0 + round * HOUR, 'solo')[0]!)),
        ]);
        await store.calls.write(batch.map((parts) => parts[1]!));
      }
      await store.calls.deleteCascade('k/two', ['r0-0', 'r1-1'], T0 + 99 * HOUR);

      // the folds of the running store empty the pending changes by themselves
      await until('the pending roll-up changes to be folded', async () => {
        const [row] = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM call_rollup_pending');
        return row!.n === 0 ? true : null;
      });
      assert.equal(store.foldFailures(), 0);
      for (const project of projects) {
        const scan = await query<{ n: number; errors: number }>(
          url,
          `SELECT count(*)::int AS n FROM calls WHERE project_id = $1 AND started_at IS NOT NULL AND deleted_at IS NULL`,
          [project],
        );
        const rolled = await query<{ n: number }>(
          url,
          `SELECT COALESCE(sum(calls), 0)::int AS n FROM call_rollups WHERE project_id = $1 AND scope = 0`,
          [project],
        );
        const counted = await query<{ n: number }>(
          url,
          `SELECT COALESCE(sum(calls), 0)::int AS n FROM call_counts WHERE project_id = $1`,
          [project],
        );
        assert.equal(rolled[0]!.n, scan[0]!.n, `${project}: roll-up calls`);
        assert.equal(counted[0]!.n, scan[0]!.n, `${project}: call_counts`);
        const all = await store.calls.count({ project_id: project });
        assert.equal(Number(all.count), scan[0]!.n, `${project}: count`);
      }

      // the indexer finds every project on the shards and indexes it; $contains then reads the index
      for (;;) if ((await store.callText.step(50)).project === null) break;
      for (const project of projects) {
        assert.equal(await store.callText.covers(project), true, `${project}: covered`);
        for (const word of [...words, 'solo', 'absent']) {
          const q = (substr: unknown): CallsQuery => ({
            project_id: project,
            where: where({ $contains: { input: { $getField: 'inputs.prompt' }, substr } }),
          });
          const indexed = (await ids(store, q({ $literal: word }))).sort();
          const scanned = (await ids(store, q({ $convert: { input: { $literal: word }, to: 'string' } }))).sort();
          assert.deepEqual(indexed, scanned, `${project}: contains ${word}`);
        }
      }
      const [texts] = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM call_texts');
      const [calls] = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM calls');
      assert.equal(texts!.n, calls!.n);
    } finally {
      await store.close();
    }
  });
});

describe('planner statistics on Citus', () => {
  test("a burst into one project refreshes its shards' statistics, so the trace view reads the trace index", async () => {
    const { url, store } = await distributedStore();
    try {
      const parts = Array.from({ length: 3000 }, (_, i) => callParts('burst/one', `b${i}`, T0 + i * 1000, `call ${i}`));
      for (let i = 0; i < parts.length; i += 500) {
        await store.calls.write(parts.slice(i, i + 500).map((p) => p[0]!));
        await store.calls.write(parts.slice(i, i + 500).map((p) => p[1]!));
      }
      // the workers' backends report their counters when idle (up to PostgreSQL's 10 s); until then nothing is due
      await until("the shards' counters", async () => {
        const [shard] = await query<{ n: string | null }>(
          url,
          `SELECT max(result::float8)::text AS n FROM run_command_on_shards('calls',
            $$SELECT n_mod_since_analyze FROM pg_stat_user_tables WHERE relid = '%s'::regclass$$)`,
        );
        return Number(shard!.n) > 1000 ? true : null;
      });
      // the indexer's first step with work looks at the statistics (src/store/postgres/planner-statistics.ts)
      const step = await store.callText.step(50);
      assert.equal(step.project, 'burst/one');
      assert.ok(step.analyzed?.includes('calls'), `analyzed: ${JSON.stringify(step.analyzed)}`);
      // the shard holding the project now knows its rows (the coordinator's shell never does)
      const [counted] = await query<{ tuples: string }>(
        url,
        `SELECT max(result::float8)::text AS tuples FROM run_command_on_shards('calls',
          $$SELECT reltuples FROM pg_class WHERE oid = '%s'::regclass$$)`,
      );
      assert.ok(Number(counted!.tuples) >= 3000, `reltuples on the shards: ${counted!.tuples}`);
      // and plans the trace view as an index read, not as a walk of the project's calls
      const plan = await query<{ 'QUERY PLAN': string }>(
        url,
        `EXPLAIN (ANALYZE, COSTS OFF) SELECT c.id FROM calls c WHERE c.project_id = $1 AND c.trace_id = ANY($2::text[])
          AND c.started_at IS NOT NULL AND c.deleted_at IS NULL ORDER BY c.started_at, c.id LIMIT 1000`,
        ['burst/one', ['t-b7']],
      );
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      assert.doesNotMatch(text, /Rows Removed by Filter: [1-9]\d{2,}/, text);
    } finally {
      await store.close();
    }
  });
});
