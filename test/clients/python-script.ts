import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerProcess } from '../helpers/server-process.js';

const SCRIPT_TIMEOUT_MS = 150_000;

/** The environment of a Python client pointed at `url` with `key`, in the fresh HOME `home`. */
function clientEnv(home: string, url: string, key: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    PYTHONUNBUFFERED: '1',
    WF_TRACE_SERVER_URL: url,
    WANDB_BASE_URL: url,
    WANDB_API_KEY: key,
    // the client's response cache outlives the process (keyed by request, not server)
    WEAVE_SERVER_CACHE_DIR: path.join(home, 'weave-server-cache'),
  };
}

/**
 * Runs a demo script of test/clients/python/ with the venv's interpreter, pointed at `server` with
 * `key`, in a fresh HOME; resolves with the JSON object printed on its last line. The client's
 * response cache outlives the process (keyed by request, not server), so each run gets its own.
 */
export function runPythonDemo(
  python: string,
  script: string,
  server: Pick<ServerProcess, 'url' | 'output'>,
  key: string,
  args: string[],
): Promise<{ result: Record<string, any>; log: string }> {
  const name = path.basename(script);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-pydemo-'));
  const env = clientEnv(home, server.url, key);
  return new Promise((resolve, reject) => {
    execFile(
      python,
      [script, ...args],
      { cwd: home, env, timeout: SCRIPT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        fs.rmSync(home, { recursive: true, force: true });
        const log = `--- python stdout\n${stdout}\n--- python stderr\n${stderr}\n--- heddle output (tail)\n${server.output().slice(-6000)}`;
        if (error) return reject(new Error(`${name} ${args.join(' ')} failed: ${error.message}\n${log}`));
        try {
          resolve({ result: JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, any>, log });
        } catch {
          reject(new Error(`${name} printed no JSON result\n${log}`));
        }
      },
    );
  });
}

/** A demo script that prints READY once `weave.init` is done and waits for a line on stdin to go on. */
export interface InteractiveDemo {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Its exit code, once it exits. */
  exited: Promise<number | null>;
  /** Its output so far, for assertion messages. */
  log(): string;
}

/**
 * Starts `script` (`args` after it) with the venv's interpreter against `url` in a fresh HOME,
 * waits for its READY line (failing with its output when none comes), and kills it when the test
 * ends (at the latest after 150 s).
 */
export async function startInteractiveDemo(
  t: { after: (fn: () => unknown) => void },
  python: string,
  script: string,
  url: string,
  key: string,
  args: string[],
): Promise<InteractiveDemo> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-pydemo-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const child = spawn(python, [script, ...args], { cwd: home, env: clientEnv(home, url, key), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const killer = setTimeout(() => child.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
  t.after(() => {
    clearTimeout(killer);
    child.kill('SIGKILL');
  });
  const log = (): string => `--- python stdout\n${stdout}\n--- python stderr\n${stderr.slice(-6000)}`;
  const deadline = Date.now() + 120_000;
  while (!stdout.includes('READY') && Date.now() < deadline && child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!stdout.includes('READY')) throw new Error(`weave.init did not finish\n${log()}`);
  return { child, stdout: () => stdout, stderr: () => stderr, exited, log };
}
