/**
 * HEDDLE_DATABASE_WAIT_SECONDS (src/cli/open-store.ts): `serve` started before its PostgreSQL
 * accepts connections keeps retrying, says so once on stderr without the password, and serves once
 * the database is up, as deploy/compose.yaml and the Helm chart rely on. The database here is a real
 * one behind a loopback TCP forwarder that starts listening only after the server has reported a
 * refused connection; with the default (0) the same start fails at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { test } from 'node:test';
import { freePort } from '../helpers/free-port.js';
import { testDatabase } from '../helpers/postgres.js';
import { compiledMain, REPO_ROOT } from '../helpers/server-process.js';

/** Forwards connections on `port` to the database's own address. */
function forwarder(port: number, target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** Starts `heddle serve` on `url` with a data dir and admin key of its own; waits on its output and exit. */
function serve(url: string, env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-wait-'));
  env = { HEDDLE_DATA_DIR: dataDir, HEDDLE_ADMIN_KEY: randomBytes(20).toString('hex'), ...env };
  const child = spawn(process.execPath, [compiledMain(), 'serve'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HEDDLE_DATABASE_URL: url,
      HEDDLE_HOST: '127.0.0.1',
      HEDDLE_PORT: '0',
      HEDDLE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const w of waiters.splice(0))
      if (w.re.test(output)) w.resolve();
      else waiters.push(w);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    output: () => output,
    seen: (re: RegExp) =>
      new Promise<void>((resolve, reject) => {
        if (re.test(output)) return resolve();
        waiters.push({ re, resolve });
        void exited.then((code) => reject(new Error(`exited ${code} before ${re}:\n${output}`)));
      }),
  };
}

test('serve waits for a PostgreSQL that is not up yet, then serves', { timeout: 120_000 }, async (t) => {
  const dbUrl = await testDatabase(t);
  if (dbUrl === null) return;
  const target = new URL(dbUrl);
  const port = await freePort();
  const viaForwarder = new URL(dbUrl);
  viaForwarder.port = String(port);

  const failing = serve(viaForwarder.toString(), {});
  assert.equal(await failing.exited, 2, failing.output());
  assert.match(failing.output(), /the connection was refused/);

  const waiting = serve(viaForwarder.toString(), { HEDDLE_DATABASE_WAIT_SECONDS: '60' });
  t.after(() => {
    waiting.child.kill('SIGKILL');
  });
  await waiting.seen(/retrying for up to HEDDLE_DATABASE_WAIT_SECONDS=60/);
  assert.ok(!waiting.output().includes(`:${target.password}@`), 'the password is never printed');
  const server = await forwarder(port, target);
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await waiting.seen(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
  const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(waiting.output())![1]!;
  const health = await fetch(`${listening}/health`);
  assert.equal(health.status, 200);
  waiting.child.kill('SIGTERM');
  assert.equal(await waiting.exited, 0, waiting.output());
});
