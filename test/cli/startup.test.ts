import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { startServerProcess } from '../helpers/server-process.js';
import { runCli, type CliRun } from './cli-helpers.js';

/**
 * Start-up failures an operator can fix are one line on stderr naming the cause and the setting,
 * exit code 2, no stack trace, and nothing created (no data directory, SQLite file or admin key).
 */

function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-startup-'));
  t.after(() => {
    fs.chmodSync(dir, 0o700);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** A port something else listens on, held until the test ends. */
async function busyPort(t: TestContext): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** A port nothing listens on (bound, read, released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function assertOneLineFailure(run: CliRun, message: RegExp, setting: string): void {
  assert.equal(run.code, 2, `exit code\n${run.stdout}\n${run.stderr}`);
  assert.equal(run.stdout, '', 'nothing on stdout (no admin key printed)');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line expected:\n${run.stderr}`);
  assert.match(lines[0]!, message);
  assert.ok(lines[0]!.includes(setting), `names ${setting}: ${lines[0]}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

const baseEnv = (dataDir: string, port: number | string = 0): Record<string, string> => ({
  HEDDLE_DATA_DIR: dataDir,
  HEDDLE_HOST: '127.0.0.1',
  HEDDLE_PORT: String(port),
  HEDDLE_LOG_LEVEL: 'info',
});

test('a port in use: one line naming HEDDLE_PORT, exit 2, no data directory or key created', async (t) => {
  const dir = tempDir(t);
  const port = await busyPort(t);
  const dataDir = path.join(dir, 'data');
  const run = await runCli(['serve'], baseEnv(dataDir, port));
  assertOneLineFailure(run, new RegExp(`^heddle: Port ${port} on 127\\.0\\.0\\.1 is already in use`), 'HEDDLE_PORT');
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing created');
  // an existing data directory stays as it was: no SQLite file, no admin-key file
  fs.mkdirSync(dataDir);
  assertOneLineFailure(await runCli(['serve'], baseEnv(dataDir, port)), /already in use/, 'HEDDLE_PORT');
  assert.deepEqual(fs.readdirSync(dataDir), []);
});

test('a probe port in use: one line naming HEDDLE_PROBE_PORT, exit 2, nothing created', async (t) => {
  const dir = tempDir(t);
  const probe = await busyPort(t);
  const dataDir = path.join(dir, 'data');
  const run = await runCli(['serve'], { ...baseEnv(dataDir), HEDDLE_PROBE_PORT: String(probe) });
  assertOneLineFailure(
    run,
    new RegExp(`^heddle: Port ${probe} on 127\\.0\\.0\\.1 is already in use.*HEDDLE_PROBE_PORT`),
    'HEDDLE_PROBE_PORT',
  );
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing created');
});

test('a data directory that is missing (with its parent), a file, or not writable', async (t) => {
  const dir = tempDir(t);
  const missing = path.join(dir, 'no', 'such', 'dir');
  assertOneLineFailure(await runCli(['serve'], baseEnv(missing)), /is missing and so is its parent/, 'HEDDLE_DATA_DIR');
  assert.deepEqual(fs.readdirSync(dir), []);

  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x');
  assertOneLineFailure(await runCli(['serve'], baseEnv(file)), /is not a directory/, 'HEDDLE_DATA_DIR');
  assert.deepEqual(fs.readdirSync(dir), ['a-file']);
  assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  // a path through that file (ENOTDIR), one level down and two
  for (const under of [path.join(file, 'sub'), path.join(file, 'sub', 'deeper')])
    assertOneLineFailure(
      await runCli(['serve'], baseEnv(under)),
      /a part of its path is a file, not a directory/,
      'HEDDLE_DATA_DIR',
    );
  assert.deepEqual(fs.readdirSync(dir), ['a-file']);

  // root may write anywhere permissions say no, so as root use a directory no one can create files in
  let readOnly = '/proc';
  if (process.getuid?.() !== 0) {
    readOnly = path.join(dir, 'read-only');
    fs.mkdirSync(readOnly);
    fs.chmodSync(readOnly, 0o500);
  }
  assertOneLineFailure(await runCli(['serve'], baseEnv(readOnly)), /is not writable/, 'HEDDLE_DATA_DIR');
  if (readOnly !== '/proc') assert.deepEqual(fs.readdirSync(readOnly), []);
});

test('a PostgreSQL that refuses: one line naming HEDDLE_DATABASE_URL without its password, exit 2', async (t) => {
  const dir = tempDir(t);
  const port = await closedPort();
  const env = {
    ...baseEnv(path.join(dir, 'data')),
    HEDDLE_DATABASE_URL: `postgres://heddle:s3cret-pw@127.0.0.1:${port}/heddle`,
  };
  for (const args of [['serve'], ['keys', 'list']]) {
    const run = await runCli(args, env);
    assertOneLineFailure(
      run,
      /Cannot use PostgreSQL at postgres:\/\/heddle@127\.0\.0\.1:\d+\/heddle: .*refused/,
      'HEDDLE_DATABASE_URL',
    );
    assert.ok(!run.stderr.includes('s3cret-pw'), 'the password is never shown');
  }
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing created');
});

test('no command prints the help and starts nothing', async (t) => {
  const dir = tempDir(t);
  const run = await runCli([], baseEnv(path.join(dir, 'data')));
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Usage: heddle <command>/);
  assert.match(run.stdout, /serve\s+start the server/);
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('an unknown HEDDLE_* variable is a warning naming the closest setting; the server still starts', async (t) => {
  const srv = await startServerProcess(t, { env: { HEDDLE_PROT: '9999', HEDDLE_LOGLEVEL: 'debug' } });
  assert.match(srv.output(), /warning: Unknown setting HEDDLE_LOGLEVEL is ignored; did you mean HEDDLE_LOG_LEVEL\?/);
  assert.match(srv.output(), /warning: Unknown setting HEDDLE_PROT is ignored; did you mean HEDDLE_PORT\?/);
  assert.equal((await fetch(`${srv.url}/health`)).status, 200);
});
