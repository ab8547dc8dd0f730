import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { callIds, postJson, runCli, startOf } from './cli-helpers.js';

/** The CLI (`heddle keys …`, `heddle serve`) against real server processes on temp data dirs. */

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('keys create / list / revoke against a running server', async (t) => {
  const srv = await startServerProcess(t);
  const env = { HEDDLE_DATA_DIR: srv.dataDir, HEDDLE_LOG_LEVEL: 'silent' };
  const created = await runCli(['keys', 'create', '--entity', 'acme', '--user', 'alice'], env);
  assert.equal(created.code, 0, created.stderr);
  const key = /^key: (\S+)$/m.exec(created.stdout)?.[1] ?? '';
  const id = /^id: (\S+)$/m.exec(created.stdout)?.[1] ?? '';
  assert.match(key, /^[0-9a-f]{40}$/, created.stdout);
  assert.match(id, /^key_/);

  const ok = await postJson(srv.url, '/call/start', { start: startOf('acme/demo', 'c1') }, key);
  assert.equal(ok.status, 200, ok.text);
  assert.equal((await postJson(srv.url, '/call/read', { project_id: 'other/x', id: 'c1' }, key)).status, 403);

  const listed = await runCli(['keys', 'list'], env);
  assert.equal(listed.code, 0, listed.stderr);
  const row = listed.stdout.split('\n').find((line) => line.startsWith(`${id}\t`));
  assert.ok(row, listed.stdout);
  assert.ok(row.includes(key.slice(0, 6)), 'the prefix is shown');
  assert.match(row, /\talice\tuser\t.*\tactive$/);
  assert.ok(!listed.stdout.includes(key), 'the secret is never listed');
  assert.ok(!listed.stdout.includes(srv.adminKey), 'nor the admin key');
  assert.doesNotMatch(listed.stdout, /[0-9a-f]{20,}/, 'no long hex string at all');

  const revoked = await runCli(['keys', 'revoke', id], env);
  assert.equal(revoked.code, 0, revoked.stderr);
  const sqlite = path.join(srv.dataDir, 'heddle.sqlite');
  assert.equal(revoked.stdout.trim(), `revoked ${id} in SQLite ${sqlite}`);
  assert.match(created.stdout, new RegExp(`^store: SQLite ${sqlite.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.equal(listed.stderr, `store: SQLite ${sqlite}\n`);
  // At once: the running server looks the key up on every request.
  const refused = await postJson(srv.url, '/call/read', { project_id: 'acme/demo', id: 'c1' }, key);
  assert.equal(refused.status, 401, refused.text);
  assert.match((await runCli(['keys', 'list'], env)).stdout, new RegExp(`${id}\\t.*\\trevoked `));
  // What the key wrote before is still there for others of the entity.
  const bob = await srv.createKey('acme', { user: 'bob' });
  assert.deepEqual([...(await callIds(srv.url, 'acme/demo', bob))], ['c1']);

  const unknown = await runCli(['keys', 'revoke', 'key_nope'], env);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /No key with id key_nope/);
});

test('keys create --entity-admin makes a key that manages its entity over HTTP', async (t) => {
  const srv = await startServerProcess(t);
  const env = { HEDDLE_DATA_DIR: srv.dataDir, HEDDLE_LOG_LEVEL: 'silent' };
  const created = await runCli(['keys', 'create', '--entity', 'acme', '--user', 'lead', '--entity-admin'], env);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^entity admin: true$/m);
  const lead = /^key: (\S+)$/m.exec(created.stdout)?.[1] ?? '';
  const made = await postJson(srv.url, '/keys/create', { entity: 'acme', username: 'dev' }, lead);
  assert.equal(made.status, 200, made.text);
  assert.equal((await postJson(srv.url, '/keys/create', { entity: 'other' }, lead)).status, 403);
  const plain = await srv.createKey('acme', { user: 'member' });
  assert.equal((await postJson(srv.url, '/keys/query', { entity: 'acme' }, plain)).status, 403);
});

test('CLI usage errors exit with 2 and say what is wrong', async (t) => {
  const env = { HEDDLE_DATA_DIR: tempDir(t), HEDDLE_LOG_LEVEL: 'silent' };
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'create'], /needs --entity/],
    [['keys', 'create', '--entity', 'a/b'], /Invalid entity name/],
    [['keys', 'create', '--entity', 'acme', '--bogus'], /Unknown option '--bogus'/],
    [['keys', 'revoke'], /Usage: heddle/],
    [['keys', 'frobnicate'], /Usage: heddle/],
    [['launch'], /Usage: heddle/],
  ];
  for (const [args, message] of cases) {
    const run = await runCli(args, env);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
  }
  const help = await runCli(['--help'], env);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /keys create --entity/);
});

test('invalid configuration exits with 2 and names every invalid variable (never a secret)', async (t) => {
  const dir = tempDir(t);
  const env = {
    HEDDLE_DATA_DIR: dir,
    HEDDLE_PORT: 'abc',
    HEDDLE_BODY_LIMIT_BYTES: '12',
    HEDDLE_LOG_LEVEL: 'loud',
    HEDDLE_ADMIN_KEY: 'too-short-secret',
  };
  for (const args of [['serve'], ['keys', 'list']]) {
    const run = await runCli(args, env);
    assert.equal(run.code, 2, run.stderr);
    for (const name of [
      'HEDDLE_PORT="abc"',
      'HEDDLE_BODY_LIMIT_BYTES="12"',
      'HEDDLE_LOG_LEVEL="loud"',
      'HEDDLE_ADMIN_KEY',
    ]) {
      assert.ok(run.stderr.includes(name), `${args[0]}: ${name} not reported in:\n${run.stderr}`);
    }
    assert.match(run.stderr, /expected one of fatal, error, warn, info, debug, silent/);
    assert.ok(!run.stderr.includes('too-short-secret'), 'the admin key is not echoed');
  }
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing was created');
});

test('first start without keys creates <data dir>/admin-key (0600) and prints it once', async (t) => {
  const dataDir = tempDir(t);
  const first = await startServerProcess(t, { dataDir, env: { HEDDLE_ADMIN_KEY: '' } });
  // printed just after the listening line: the key is made only once the server could start
  const keyLine = /Created an admin API key[^\n]*\n\s+([0-9a-f]{40})\n/;
  for (let i = 0; i < 100 && !keyLine.test(first.output()); i += 1) await new Promise((r) => setTimeout(r, 50));
  const printed = keyLine.exec(first.output())?.[1];
  assert.ok(printed, first.output().slice(0, 2000));
  const file = path.join(dataDir, 'admin-key');
  assert.equal(fs.readFileSync(file, 'utf8').trim(), printed);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  for (const project of ['acme/demo', 'other/x', 'admin/p']) {
    const res = await postJson(first.url, '/call/start', { start: startOf(project, 'a1') }, printed);
    assert.equal(res.status, 200, `${project}: ${res.text}`);
  }
  assert.equal(await first.stop(), 0);

  const second = await startServerProcess(t, { dataDir, env: { HEDDLE_ADMIN_KEY: '' } });
  assert.doesNotMatch(second.output(), /Created an admin API key/);
  assert.ok(!second.output().includes(printed), 'the key is not printed again');
  assert.equal(fs.readFileSync(file, 'utf8').trim(), printed);
  assert.equal((await postJson(second.url, '/call/read', { project_id: 'other/x', id: 'a1' }, printed)).status, 200);
  const keys = await runCli(['keys', 'list'], { HEDDLE_DATA_DIR: dataDir, HEDDLE_LOG_LEVEL: 'silent' });
  assert.equal(keys.stdout.trim().split('\n').length, 2, `one key plus the header:\n${keys.stdout}`);
});

test('HEDDLE_ADMIN_KEY makes that key an admin; no key file is written and nothing printed', async (t) => {
  const srv = await startServerProcess(t);
  for (const project of ['acme/demo', 'other/x']) {
    const res = await postJson(srv.url, '/call/start', { start: startOf(project, 'k1') }, srv.adminKey);
    assert.equal(res.status, 200, `${project}: ${res.text}`);
    assert.deepEqual([...(await callIds(srv.url, project, srv.adminKey))], ['k1']);
  }
  assert.ok(!fs.existsSync(path.join(srv.dataDir, 'admin-key')));
  assert.ok(!srv.output().includes(srv.adminKey), 'the configured key is never logged');
  const listed = await runCli(['keys', 'list'], { HEDDLE_DATA_DIR: srv.dataDir, HEDDLE_LOG_LEVEL: 'silent' });
  assert.match(listed.stdout, /\tadmin\tadmin\t/);
});
