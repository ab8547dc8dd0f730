import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { postJson, runCli, startOf } from './cli-helpers.js';

/** Roles and the audit log from the CLI (`heddle keys create --role`, `keys role`, `audit`; docs/roles-and-audit.md). */

const keyOf = (stdout: string): string => /^key: (\S+)$/m.exec(stdout)?.[1] ?? '';

/** The server remembers roles for a few seconds (services/auth-service.ts): poll until `status` is answered. */
async function eventually(probe: () => Promise<number>, status: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let last = await probe();
  while (last !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await probe();
  }
  return last;
}

test('a viewer key made by the CLI reads but cannot write; keys role promotes it; audit lists both', async (t) => {
  const srv = await startServerProcess(t);
  const env = { HEDDLE_DATA_DIR: srv.dataDir, HEDDLE_LOG_LEVEL: 'silent' };
  const created = await runCli(['keys', 'create', '--entity', 'acme', '--user', 'vic', '--role', 'viewer'], env);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^role: viewer$/m);
  const vic = keyOf(created.stdout);
  const write = async () => (await postJson(srv.url, '/call/start', { start: startOf('acme/demo', 'c1') }, vic)).status;
  const read = async () => (await postJson(srv.url, '/calls/query_stats', { project_id: 'acme/demo' }, vic)).status;
  const refused = await postJson(srv.url, '/call/start', { start: startOf('acme/demo', 'c1') }, vic);
  assert.equal(refused.status, 403);
  assert.match(refused.text, /viewer/);
  assert.equal(await read(), 200);

  const promoted = await runCli(['keys', 'role', '--entity', 'acme', '--user', 'vic', '--role', 'member'], env);
  assert.equal(promoted.code, 0, promoted.stderr);
  assert.match(promoted.stdout, /^role: member \(was viewer\)$/m);
  assert.equal(await eventually(write, 200), 200);

  const log = await runCli(['audit', '--entity', 'acme'], env);
  assert.equal(log.code, 0, log.stderr);
  const entries = log.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { action: string; username: string | null; target: string; details: object });
  assert.deepEqual(
    entries.map((e) => [e.action, e.username, e.target]),
    [
      ['role.changed', null, 'vic'],
      ['role.changed', null, 'vic'],
      ['key.created', null, entries[2]!.target],
    ],
  );
  assert.deepEqual(entries[0]!.details, { from: 'viewer', to: 'member' });
  const only = await runCli(['audit', '--entity', 'acme', '--action', 'key.created', '--limit', '5'], env);
  assert.equal(only.stdout.trim().split('\n').length, 1);
});

test('CLI role and audit usage errors exit with 2; entity names follow the REST rule', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-cli-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { HEDDLE_DATA_DIR: dir, HEDDLE_LOG_LEVEL: 'silent' };
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'create', '--entity', 'a b'], /Invalid entity name/],
    [['keys', 'create', '--entity', '..'], /Invalid entity name/],
    [['keys', 'create', '--entity', 'x'.repeat(129)], /Invalid entity name/],
    [['keys', 'create', '--entity', 'acme', '--role', 'owner'], /Invalid role "owner"/],
    [['keys', 'create', '--entity', 'acme', '--role', 'viewer', '--entity-admin'], /contradicts/],
    [['keys', 'role', '--entity', 'acme'], /needs --entity, --user and --role/],
    [['keys', 'role', '--entity', 'acme', '--user', 'nobody', '--role', 'viewer'], /not a member/],
    [['audit'], /needs --entity/],
    [['audit', '--entity', 'acme', '--limit', '0'], /--limit/],
    [['audit', '--entity', 'acme', '--action', 'nope'], /Unknown --action/],
  ];
  for (const [args, message] of cases) {
    const run = await runCli(args, env);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
  }
});

test("keys create: a new entity's first key is its admin and makes the next keys through the API", async (t) => {
  const srv = await startServerProcess(t);
  const env = { HEDDLE_DATA_DIR: srv.dataDir, HEDDLE_LOG_LEVEL: 'silent' };
  const first = await runCli(['keys', 'create', '--entity', 'newco', '--user', 'founder'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^role: admin$/m);
  assert.match(first.stdout, /^entity admin: true$/m);
  const made = await postJson(srv.url, '/keys/create', { entity: 'newco', username: 'hire' }, keyOf(first.stdout));
  assert.equal(made.status, 200, made.text);
  assert.equal(JSON.parse(made.text).role, 'member');
  const second = await runCli(['keys', 'create', '--entity', 'newco', '--user', 'intern'], env);
  assert.match(second.stdout, /^role: member$/m);
});
