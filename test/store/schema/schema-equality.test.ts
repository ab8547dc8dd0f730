import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIGRATIONS } from '../../../src/store/sql/migrations/index.js';
import { emptyPostgres, freshSqliteSchema, migratedPostgresSchema } from './fresh-schemas.js';
import type { SchemaShape, TableShape } from './introspect.js';

/**
 * Both stores migrate to the same schema (one migration list, SQL per dialect): the same tables,
 * columns (name, type through the affinity map of introspect.ts, nullability), keys and indexes.
 * Deliberate differences are listed here, each exactly, so fixing one fails until it is removed.
 */

/** Columns only one store has. */
const ONLY_IN: { table: string; column: string; store: 'sqlite' | 'postgres'; why: string }[] = [
  { table: 'calls', column: 'seq', store: 'postgres', why: 'insertion order for sort_by []; SQLite uses its rowid' },
];

/**
 * SQLite's FTS5 tables of the calls' substring index (migrations 017 and 032) and of agent message
 * search (037), and their shadow tables.
 */
const FTS_TABLES = ['call_text_fts', 'call_text_trigrams', 'agent_message_trigrams'].flatMap((name) =>
  ['', '_data', '_idx', '_docsize', '_config'].map((suffix) => name + suffix),
);

/** Tables only one store has. */
const TABLES_ONLY_IN: { table: string; store: 'sqlite' | 'postgres'; why: string }[] = [
  {
    table: 'change_counters',
    store: 'sqlite',
    why: "the live tail's write counter; PostgreSQL stamps calls.change_seq with the transaction id instead",
  },
  // the substring indexes of migrations 017, 032 and 037: SQLite's FTS5 tables (keyed by the calls'
  // and the messages' rowids) and the tables FTS5 keeps for them; PostgreSQL's text table with its
  // pg_trgm index (agent messages: a pg_trgm index on the table itself)
  ...FTS_TABLES.map((table) => ({
    table,
    store: 'sqlite' as const,
    why: 'the FTS5 trigram indexes of $contains and of message search, and their shadow tables',
  })),
  { table: 'call_texts', store: 'postgres', why: 'the text that the pg_trgm index of $contains is built on' },
  { table: 'call_rollup_pending', store: 'postgres', why: "the call writers' roll-up changes not folded yet" },
];

/**
 * Indexes that differ by design: the PostgreSQL calls indexes match its planner (descending
 * listing order, partial indexes for live roots, lookups the query compiler makes there), SQLite's
 * are the original set. `null`: the store has no such index.
 */
const INDEX_DIFFERENCES: { table: string; index: string; sqlite: string[] | null; postgres: string[] | null }[] = [
  {
    table: 'calls',
    index: 'calls_by_op',
    sqlite: ['project_id', 'op_name', 'started_at'],
    postgres: ['project_id', 'op_name', 'started_at', 'id'],
  },
  {
    table: 'calls',
    index: 'calls_by_thread',
    sqlite: ['project_id', 'thread_id'],
    postgres: ['project_id', 'thread_id', 'started_at'],
  },
  { table: 'calls', index: 'calls_roots_by_start', sqlite: null, postgres: ['project_id', 'started_at', 'id'] },
  { table: 'calls', index: 'calls_by_turn', sqlite: null, postgres: ['project_id', 'turn_id'] },
  { table: 'calls', index: 'calls_by_user', sqlite: null, postgres: ['project_id', 'wb_user_id'] },
  { table: 'calls', index: 'calls_by_run', sqlite: null, postgres: ['project_id', 'wb_run_id'] },
  { table: 'projects', index: 'projects_by_entity', sqlite: null, postgres: ['entity'] },
  // message search (migration 037): SQLite keeps its trigrams in agent_message_trigrams
  {
    table: 'agent_span_messages',
    index: 'agent_span_messages_by_trigram',
    sqlite: null,
    postgres: ['project_id', 'content'],
  },
];

/**
 * Tables whose keys need not start with `project_id` (every other key and index does, so the
 * data can be sharded by project, Citus-style): accounts and keys are global, `projects` is keyed
 * by `project_id` alone, training path ids name no project, and workers are not tenant data. The
 * audit log belongs to an entity and outlives the projects it records (keyed by `entity` first).
 */
const GLOBAL_TABLES = new Set([
  'users',
  'entities',
  'memberships',
  'api_keys',
  'projects',
  'training_ids',
  'training_workers',
  'ui_sessions',
  'change_counters',
  'audit_log',
  // one row per roll-up saying whether it covers every call (migration 15)
  'call_rollup_state',
  // the store-wide position of migration 016's backfill (one row)
  'call_index_builds',
  // SQLite's FTS5 indexes of $contains (migrations 017, 032) and of message search (037), keyed by
  // the calls' and the messages' rowids, and their shadow tables
  ...FTS_TABLES,
]);

/** Indexes of per-project tables that do not lead with `project_id`. */
const NOT_BY_PROJECT = new Set<string>([]);

/** The schema with the listed differences taken out, so the rest must match exactly. */
function comparable(schema: SchemaShape, store: 'sqlite' | 'postgres'): Record<string, TableShape> {
  const tables = structuredClone(schema.tables);
  for (const only of TABLES_ONLY_IN) {
    if (only.store !== store) continue;
    assert.ok(tables[only.table], `${store} has table ${only.table}`);
    delete tables[only.table];
  }
  for (const only of ONLY_IN) {
    if (only.store !== store) continue;
    const table = tables[only.table]!;
    assert.ok(
      table?.columns.some((c) => c.name === only.column),
      `${store} has ${only.table}.${only.column}`,
    );
    table.columns = table.columns.filter((c) => c.name !== only.column);
  }
  for (const diff of INDEX_DIFFERENCES) {
    const table = tables[diff.table];
    assert.ok(table, `${store} has table ${diff.table}`);
    assert.deepEqual(table.indexes[diff.index]?.columns ?? null, diff[store], `${store} index ${diff.index}`);
    delete table.indexes[diff.index];
  }
  return tables;
}

test('SQLite and PostgreSQL migrate to the same tables, columns, keys and indexes', async (t) => {
  const url = await emptyPostgres(t);
  if (url === null) return;
  const sqlite = comparable(await freshSqliteSchema(t), 'sqlite');
  const postgres = comparable(await migratedPostgresSchema(url), 'postgres');
  assert.deepEqual(Object.keys(sqlite).sort(), Object.keys(postgres).sort());
  for (const name of Object.keys(sqlite)) assert.deepEqual(sqlite[name], postgres[name], `table ${name}`);
});

test('every key and index of a per-project table leads with project_id', async (t) => {
  const schema = await freshSqliteSchema(t);
  const url = await emptyPostgres(t);
  const schemas: Array<['sqlite' | 'postgres', SchemaShape]> =
    url === null
      ? [['sqlite', schema]]
      : [
          ['sqlite', schema],
          ['postgres', await migratedPostgresSchema(url)],
        ];
  for (const [store, { tables }] of schemas) {
    for (const name of GLOBAL_TABLES)
      if (!TABLES_ONLY_IN.some((only) => only.table === name && only.store !== store))
        assert.ok(tables[name], `global table ${name} exists in ${store}`);
    for (const [name, table] of Object.entries(tables)) {
      if (GLOBAL_TABLES.has(name)) continue;
      assert.equal(table.primaryKey[0], 'project_id', `primary key of ${name}`);
      for (const unique of table.uniques) assert.equal(unique[0], 'project_id', `unique ${unique.join()} of ${name}`);
      for (const [index, { columns }] of Object.entries(table.indexes))
        if (!NOT_BY_PROJECT.has(index)) assert.equal(columns[0], 'project_id', `index ${index} of ${name}`);
    }
  }
});

test('the migration list is numbered 1, 2, 3 … with unique names and SQL for both dialects', () => {
  assert.ok(MIGRATIONS.length > 0);
  MIGRATIONS.forEach((m, i) => {
    assert.equal(m.id, i + 1, `entry ${i} has id ${m.id}`);
    assert.match(m.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    for (const dialect of ['sqlite', 'postgres'] as const) assert.notEqual(m[dialect], undefined);
  });
  assert.equal(new Set(MIGRATIONS.map((m) => m.name)).size, MIGRATIONS.length);
});
