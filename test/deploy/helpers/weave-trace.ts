import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from '../../clients/python-venv.js';
import { REPO_ROOT } from '../../helpers/server-process.js';

/**
 * The official Python client (weave, pinned in test/clients/python-venv.ts) tracing into a deployed
 * server with test/clients/python/trace_demo.py (nested ops, one raising, read back with
 * get_calls): what a user does first after `compose up`.
 */

const SCRIPT = path.join(REPO_ROOT, 'test', 'clients', 'python', 'trace_demo.py');

/** The client's interpreter; fails under CI=true when it cannot be installed, skips `t` otherwise. */
export async function weavePython(t: TestContext): Promise<string | null> {
  const venv = await ensureWeaveVenv();
  if (venv.ok) return venv.python;
  if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
  t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.slice(0, 300)}`);
  return null;
}

/** Traces `pipeline(21)` into `project` at `url` and checks what the client reads back. */
export async function traceAndReadBack(python: string, url: string, key: string, project: string): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-deploy-py-'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    PYTHONUNBUFFERED: '1',
    WF_TRACE_SERVER_URL: url,
    WANDB_BASE_URL: url,
    WANDB_API_KEY: key,
    WEAVE_SERVER_CACHE_DIR: path.join(home, 'cache'),
  };
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const child = execFile(python, [SCRIPT, project], { cwd: home, env, timeout: 150_000 }, (error, out, err) => {
      fs.rmSync(home, { recursive: true, force: true });
      if (error) reject(new Error(`trace_demo.py failed: ${error.message}\n${out}\n${err}`));
      else resolve({ stdout: out, stderr: err });
    });
    child.stdin?.end(); // a client asking for a login on stdin fails at once instead of waiting
  });
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    root_output: unknown;
    calls: Array<{ op_name: string; parent_id: string | null; output: unknown }>;
  };
  const log = `${stdout}\n${stderr}`.slice(-4000);
  assert.deepEqual(result.root_output, { doubled: 42, label: 'x=21' }, log);
  const ops = result.calls.map((c) => /\/op\/([^:]+):/.exec(c.op_name)?.[1]).sort();
  assert.deepEqual(ops, ['double', 'explode', 'pipeline'], log);
  assert.equal(result.calls.filter((c) => c.parent_id === null).length, 1, log);
}
