import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServerProcess } from '../helpers/server-process.js';

const SCRIPT_TIMEOUT_MS = 150_000;

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
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    PYTHONUNBUFFERED: '1',
    WF_TRACE_SERVER_URL: server.url,
    WANDB_BASE_URL: server.url,
    WANDB_API_KEY: key,
    WEAVE_SERVER_CACHE_DIR: path.join(home, 'weave-server-cache'),
  };
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
