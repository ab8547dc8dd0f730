import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';

/**
 * A real Heddle server in its own process (`node dist/main.js serve`, the compiled build), for tests that
 * drive it with official clients over real HTTP. It listens on 127.0.0.1 on a port the kernel picks
 * (HEDDLE_PORT=0; the port is read from Fastify's "Server listening at" log line, so there is no
 * probe-then-bind race) and is stopped by its pid.
 */

const execFileP = promisify(execFile);

/** The repository root (this file is test/helpers/server-process.ts). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The compiled entry point (`npm run build`; scripts/test.sh builds before the suites), so process
 * tests run the artefact `npm start` runs. Fails when dist/ is missing or older than src/, rather
 * than testing stale code.
 */
export function compiledMain(): string {
  const main = path.join(REPO_ROOT, 'dist', 'main.js');
  const builtAt = fs.existsSync(main) ? fs.statSync(main).mtimeMs : -1;
  const stale = builtAt < 0 ? null : newestFile(path.join(REPO_ROOT, 'src'), builtAt);
  if (builtAt < 0 || stale !== null)
    throw new Error(
      `${builtAt < 0 ? 'dist/main.js is missing' : `${stale} is newer than dist/`}: run \`npm run build\``,
    );
  return main;
}

/** The first file under `dir` modified after `since` (ms), or null. */
function newestFile(dir: string, since: number): string | null {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = newestFile(file, since);
      if (found !== null) return found;
    } else if (fs.statSync(file).mtimeMs > since) return path.relative(REPO_ROOT, file);
  }
  return null;
}

/** How much of the server's stdout/stderr is kept for failure messages. */
const OUTPUT_TAIL_CHARS = 64 * 1024;

export interface ServerProcessOptions {
  /** Extra HEDDLE_* variables (HEDDLE_PORT/HOST are chosen by the helper). */
  env?: Record<string, string>;
  /** Data directory; default a fresh temp dir removed when the server is disposed. */
  dataDir?: string;
  /** How long to wait for the listening line; default 30 s. */
  readyTimeoutMs?: number;
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** The admin key the server was started with (HEDDLE_ADMIN_KEY). */
  adminKey: string;
  /** The environment the server runs with (reuse it for CLI commands on the same data). */
  env: NodeJS.ProcessEnv;
  /** The last part of the server's stdout+stderr, for assertion messages. */
  output(): string;
  /** Creates an API key with the CLI (`keys create`) on the same data dir; returns the key. */
  createKey(entity: string, opts?: { user?: string; admin?: boolean }): Promise<string>;
  /** SIGTERM by pid, SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
  /** Stops the server if it still runs and removes a temp data dir the helper created. */
  dispose(): Promise<void>;
}

/** `Basic api:<key>`, the header the W&B clients send. */
export function basicAuthHeader(key: string): string {
  return `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
}

/** Runs the Heddle CLI (`node dist/main.js ...args`) with `env`; returns stdout. */
export async function runHeddleCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileP(process.execPath, [compiledMain(), ...args], {
    cwd: REPO_ROOT,
    env,
    timeout: 60_000,
  });
  return stdout;
}

/**
 * Starts a server. With `t`, the server is stopped and its temp data removed in `t.after`, so a
 * failing test never leaves a process behind.
 */
export async function startServerProcess(
  t?: Pick<TestContext, 'after'>,
  opts: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-proc-'));
  const adminKey = opts.env?.HEDDLE_ADMIN_KEY ?? randomBytes(20).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HEDDLE_DATA_DIR: dataDir,
    HEDDLE_ADMIN_KEY: adminKey,
    // The listening line is logged at info; a lower level would hide the port.
    HEDDLE_LOG_LEVEL: 'info',
    ...opts.env,
    HEDDLE_HOST: '127.0.0.1',
    HEDDLE_PORT: '0',
  };
  const child = spawn(process.execPath, [compiledMain(), 'serve'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const append = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // If the test process itself ends abruptly (uncaught error, process.exit), do not leave the server behind.
  const killOnExit = (): void => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, 'SIGKILL');
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const server: ServerProcess = {
    url: '',
    port: 0,
    pid: child.pid ?? -1,
    dataDir,
    adminKey,
    env,
    output: () => tail,
    createKey: async (entity, keyOpts = {}) => {
      const args = ['keys', 'create', '--entity', entity];
      if (keyOpts.user) args.push('--user', keyOpts.user);
      if (keyOpts.admin) args.push('--admin');
      const out = await runHeddleCli(args, env);
      const match = /^key: (\S+)$/m.exec(out);
      if (!match) throw new Error(`keys create printed no key:\n${out}`);
      return match[1]!;
    },
    stop: (graceMs = 10_000) => stopByPid(child, exited, graceMs),
    dispose: async () => {
      await stopByPid(child, exited, 5_000);
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (t) t.after(() => server.dispose());

  try {
    server.port = await waitForListening(child, exited, () => tail, opts.readyTimeoutMs ?? 30_000);
  } catch (error) {
    if (!t) await server.dispose();
    throw error;
  }
  server.url = `http://127.0.0.1:${server.port}`;
  return server;
}

/** Resolves with the port from Fastify's "Server listening at http://127.0.0.1:<port>" line. */
function waitForListening(
  child: ChildProcess,
  exited: Promise<number | null>,
  output: () => string,
  timeoutMs: number,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const pattern = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;
    const onData = (): void => {
      const match = pattern.exec(output());
      if (match) finish(() => resolve(Number(match[1])));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`Heddle did not start within ${timeoutMs} ms:\n${output()}`))),
      timeoutMs,
    );
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      settle();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) =>
      finish(() => reject(new Error(`Heddle exited with code ${code} before listening:\n${output()}`))),
    );
  });
}

async function stopByPid(child: ChildProcess, exited: Promise<number | null>, graceMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {
    return exited; // already gone
  }
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
  });
  const first = await Promise.race([exited, killed]);
  clearTimeout(timer);
  if (first !== 'timeout') return first;
  try {
    process.kill(child.pid, 'SIGKILL');
  } catch {
    // exited between the timeout and the kill
  }
  return exited;
}
