import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { inDependencyOrder } from '../../src/store/postgres/citus-distribution.js';
import { projectTables } from '../../src/store/sql/project-tables.js';
import { createTestDatabase, ensurePostgres, isCi } from '../helpers/postgres.js';
import { runCli } from './cli-helpers.js';

/**
 * Issue 19: `heddle db distribute --dry-run` on plain PostgreSQL (Citus is not installable here)
 * prints the statements an operator runs on a Citus coordinator: every table of the migrated schema
 * is classified once (per-project tables distributed by project_id and colocated with calls, global
 * tables as reference tables after the tables they reference, the migration log left alone).
 */

const REFERENCE = /^SELECT create_reference_table\('(\w+)'\);$/;
const TRUNCATE_LOCAL = /^SELECT truncate_local_data_after_distributing_table\('(\w+)'\);$/;
const DISTRIBUTED = /^SELECT create_distributed_table\('(\w+)', 'project_id'(?:, colocate_with => '(\w+)')?\);$/;

test('db distribute --dry-run lists every table once, in an order Citus accepts', async (t) => {
  if ((await ensurePostgres()) === null) {
    if (isCi()) throw new Error('PostgreSQL is required with CI=true');
    return t.skip('PostgreSQL is not available');
  }
  const database = await createTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-distribute-'));
  t.after(async () => {
    await database.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = { HEDDLE_DATA_DIR: dir, HEDDLE_DATABASE_URL: database.url, HEDDLE_LOG_LEVEL: 'silent' };

  const run = await runCli(['db', 'distribute', '--dry-run'], env);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /would run \d+ statements \(citus is not installed\)/);
  const lines = run.stdout.trim().split('\n');
  const reference: string[] = [];
  const distributed: Array<{ table: string; colocate: string | undefined }> = [];
  const truncated: string[] = [];
  for (const line of lines) {
    const ref = REFERENCE.exec(line);
    const dist = DISTRIBUTED.exec(line);
    const local = TRUNCATE_LOCAL.exec(line);
    if (ref) reference.push(ref[1]!);
    else if (dist) distributed.push({ table: dist[1]!, colocate: dist[2] });
    else if (local) truncated.push(local[1]!);
    else assert.fail(`unexpected statement: ${line}`);
  }
  // the coordinator's copy of each sharded table's rows is emptied, once every table is distributed
  assert.deepEqual(
    truncated,
    distributed.map((d) => d.table),
  );
  assert.equal(
    lines.findIndex((l) => TRUNCATE_LOCAL.test(l)),
    reference.length + distributed.length,
  );
  // every distributed statement follows the reference tables, calls first and the rest colocated with it
  assert.equal(
    lines.findIndex((l) => DISTRIBUTED.test(l)),
    reference.length,
  );
  assert.deepEqual(distributed[0], { table: 'calls', colocate: undefined });
  for (const d of distributed.slice(1)) assert.equal(d.colocate, 'calls', d.table);

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    const all = rows.map((r) => r.name).sort();
    const classified = [...reference, ...distributed.map((d) => d.table)];
    assert.equal(new Set(classified).size, classified.length, 'a table is classified twice');
    assert.deepEqual([...classified, 'heddle_schema_migrations'].sort(), all);
    const perProject = projectTables('postgres')
      .map((p) => p.table)
      .filter((p) => p !== 'projects' && p !== 'training_ids' && p !== 'llm_token_prices');
    assert.deepEqual(distributed.map((d) => d.table).sort(), [...perProject].sort());
    for (const global of [
      'users',
      'entities',
      'memberships',
      'api_keys',
      'projects',
      'training_ids',
      'training_workers',
      'llm_token_prices',
    ])
      assert.ok(reference.includes(global), `${global} is a reference table`);
    // a reference table comes after every table it references
    const { rows: keys } = await client.query<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class p ON p.oid = k.confrelid WHERE k.contype = 'f'`,
    );
    assert.ok(keys.length > 0);
    for (const { child, parent } of keys) {
      if (!reference.includes(child)) continue;
      assert.ok(reference.indexOf(parent) < reference.indexOf(child), `${parent} before ${child}`);
    }
  } finally {
    await client.end();
  }

  // without --dry-run, plain PostgreSQL is refused with the reason, and nothing runs
  const refused = await runCli(['db', 'distribute'], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /citus extension is not installed/);
  const sqlite = await runCli(['db', 'distribute', '--dry-run'], { HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' });
  assert.equal(sqlite.code, 2);
  assert.match(sqlite.stderr, /needs a PostgreSQL store/);
});

test('inDependencyOrder puts referenced tables first and refuses cycles', () => {
  assert.deepEqual(
    inDependencyOrder(
      ['api_keys', 'memberships', 'users', 'entities'],
      [
        ['api_keys', 'users'],
        ['memberships', 'users'],
        ['memberships', 'entities'],
      ],
    ),
    ['users', 'api_keys', 'entities', 'memberships'],
  );
  assert.throws(
    () =>
      inDependencyOrder(
        ['a', 'b'],
        [
          ['a', 'b'],
          ['b', 'a'],
        ],
      ),
    /cycle/,
  );
});
