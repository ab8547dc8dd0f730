import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { CallPart } from '../../src/store/types.js';
import { runCli } from './cli-helpers.js';

/** `heddle export` (docs/export.md) on a SQLite data directory, no server running. */

function start(id: string, opName: string, displayName: string | null): CallPart {
  return {
    kind: 'start',
    project_id: 'acme/demo',
    id,
    op_name: opName,
    op_display_name: opName,
    display_name: displayName,
    trace_id: id,
    parent_id: null,
    thread_id: null,
    turn_id: null,
    started_at: Date.UTC(2025, 0, 1) * 1000 + id.charCodeAt(0),
    attributes: '{}',
    inputs: '{"q":"a, b"}',
    otel_dump: null,
    wb_user_id: 'u',
    wb_run_id: null,
    wb_run_step: null,
  };
}

test('heddle export writes JSONL or CSV of a project, filtered, to stdout or a file', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-cli-export-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = new SqliteStore({ file: path.join(dir, 'heddle.sqlite') });
  await store.migrate();
  await store.calls.write([start('a', 'chat', null), start('b', 'score', '=1+1'), start('c', 'chat', null)]);
  await store.close();
  const env = { HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' };

  const all = await runCli(['export', '--project', 'acme/demo'], env);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(
    all.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id),
    ['a', 'b', 'c'],
  );
  assert.match(all.stderr, new RegExp(`store: SQLite ${path.join(dir, 'heddle.sqlite')}`));
  assert.match(all.stderr, /exported 3 calls of acme\/demo/);

  const out = path.join(dir, 'out.csv');
  const query = JSON.stringify({ $eq: [{ $getField: 'op_name' }, { $literal: 'score' }] });
  const csv = await runCli(
    ['export', '--project', 'acme/demo', '--format', 'csv', '--query', query, '--out', out],
    env,
  );
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(csv.stdout, '');
  const lines = fs.readFileSync(out, 'utf8').split('\r\n');
  assert.equal(lines.length, 3); // header, one call, ''
  const record = lines[1] ?? '';
  assert.match(record, /^b,b,,score,'=1\+1,/);
  assert.match(record, /"\{""q"":""a, b""\}"/);
  assert.match(csv.stderr, /exported 1 calls of acme\/demo to /);

  for (const [args, message] of [
    [['export'], /needs --project/],
    [['export', '--project', 'acme/demo', '--format', 'xml'], /--format is jsonl or csv/],
    [['export', '--project', 'acme/demo', '--query', '{'], /--query is not JSON/],
    [['export', '--project', 'nope'], /Invalid project_id/],
  ] as const) {
    const run = await runCli([...args], env);
    assert.equal(run.code, 2, args.join(' '));
    assert.match(run.stderr, message, args.join(' '));
  }
});
