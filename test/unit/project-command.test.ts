import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { projectCommand } from '../../src/cli/project-command.js';
import { UsageError } from '../../src/cli/usage.js';
import { loadConfig } from '../../src/config/config.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ProjectDumpRow, TraceStore } from '../../src/store/types.js';
import { testDatabase } from '../helpers/postgres.js';
import { end, start } from '../store/contract/parts.js';

/**
 * `heddle project export|import` in process (docs/export.md "Whole-project export and import"):
 * a project dumped from a SQLite data folder to a file loads into a PostgreSQL database with the
 * same rows; bad command lines and refused dumps are usage errors (exit code 2).
 */

const PROJECT = 'acme/demo';

async function rows(store: TraceStore): Promise<ProjectDumpRow[]> {
  const out: ProjectDumpRow[] = [];
  for await (const row of store.projectData.exportRows(PROJECT)) out.push(row);
  return out;
}

test('a project goes from a SQLite data folder through a file into PostgreSQL', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-project-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const source = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await source.migrate();
  await source.auth.ensureProject(PROJECT, 'acme', 'u1');
  await source.calls.write([start(PROJECT, 'c1', { inputs: '{"q":"é"}' }), end(PROJECT, 'c1'), start(PROJECT, 'c2')]);
  const expected = await rows(source);
  await source.close();

  const file = path.join(dir, 'dump.jsonl');
  const sqliteConfig = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' });
  const args = ['--entity', 'acme', '--project', 'demo'];
  await projectCommand(sqliteConfig, ['export', ...args, '--out', file]);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, expected.length + 2);

  const pgConfig = loadConfig({ HEDDLE_DATA_DIR: dir, HEDDLE_DATABASE_URL: url, HEDDLE_LOG_LEVEL: 'silent' });
  await projectCommand(pgConfig, ['import', ...args, '--in', file]);
  const target = new PostgresStore({ url });
  t.after(() => target.close());
  const imported = await rows(target);
  assert.deepEqual(
    imported.map((r) => [r.table, r.row.id ?? null]),
    expected.map((r) => [r.table, r.row.id ?? null]),
  );
  const call = imported.find((r) => r.table === 'calls' && r.row.id === 'c1');
  assert.equal(call?.row.inputs, '{"q":"é"}');
  // a second import into the now full project is refused with the reason
  await assert.rejects(projectCommand(pgConfig, ['import', ...args, '--in', file]), (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /already holds/);
    return true;
  });
});

test('bad command lines are usage errors', async () => {
  const config = loadConfig({ HEDDLE_DATA_DIR: os.tmpdir(), HEDDLE_LOG_LEVEL: 'silent' });
  for (const args of [
    ['export', '--project', 'demo'],
    ['copy', '--entity', 'a', '--project', 'b'],
    ['import', '--entity', 'a', '--project', 'b', '--in', '/no/such/file'],
    ['export', '--entity', 'a', '--project', 'b', '--in', 'x'],
    ['export', '--entity', 'a', '--project', 'b', '--bogus'],
  ])
    await assert.rejects(projectCommand(config, args), UsageError, args.join(' '));
});
