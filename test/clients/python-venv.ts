import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../helpers/file-lock.js';
import { REPO_ROOT } from '../helpers/server-process.js';

const execFileP = promisify(execFile);

/** The pinned official client: the version docs/python-client.md was written against. */
export const WEAVE_PY_VERSION = '0.54.0';

/** Gitignored; reused between runs once the pinned package imports. */
export const VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-py');
const VENV_PYTHON = path.join(VENV_DIR, 'bin', 'python');

/** Where the venv came from, or why there is none. */
export type VenvResult = { ok: true; python: string } | { ok: false; reason: string };

export async function run(file: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await execFileP(file, args, {
      cwd: REPO_ROOT,
      timeout: timeoutMs,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { ok: true, out: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000) };
  }
}

async function installedVersion(): Promise<string | null> {
  if (!fs.existsSync(VENV_PYTHON)) return null;
  const res = await run(VENV_PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("weave"))'], 60_000);
  return res.ok ? res.out.trim() : null;
}

/** A base interpreter that can make virtualenvs; as root under CI, installs one with apt-get. */
async function basePython(ci: boolean): Promise<string | null> {
  for (const candidate of ['python3', 'python']) {
    if ((await run(candidate, ['-c', 'import venv, ensurepip'], 30_000)).ok) return candidate;
  }
  if (ci && process.getuid?.() === 0) {
    await run('apt-get', ['update'], 300_000);
    const apt = await run('apt-get', ['install', '-y', 'python3', 'python3-venv', 'python3-pip'], 600_000);
    if (apt.ok && (await run('python3', ['-c', 'import venv, ensurepip'], 30_000)).ok) return 'python3';
  }
  return null;
}

/**
 * Makes sure `.cache/venv-py` holds weave==WEAVE_PY_VERSION, creating or repairing it with pip.
 * Returns `ok: false` with the reason when that is impossible (no interpreter, no network); the
 * caller fails under CI=true and may skip otherwise.
 */
export async function ensureWeaveVenv(): Promise<VenvResult> {
  if ((await installedVersion()) === WEAVE_PY_VERSION) return { ok: true, python: VENV_PYTHON };
  // several client test files start at once on a clean clone: one builds the venv, the others wait
  return withFileLock('heddle-test-venv-py', async () => {
    if ((await installedVersion()) === WEAVE_PY_VERSION) return { ok: true, python: VENV_PYTHON };
    return buildWeaveVenv();
  });
}

async function buildWeaveVenv(): Promise<VenvResult> {
  const ci = process.env.CI === 'true';
  if (!fs.existsSync(VENV_PYTHON)) {
    const base = await basePython(ci);
    if (base === null) return { ok: false, reason: 'no Python 3 interpreter with the venv module' };
    fs.mkdirSync(path.dirname(VENV_DIR), { recursive: true });
    const made = await run(base, ['-m', 'venv', VENV_DIR], 300_000);
    if (!made.ok) return { ok: false, reason: `python -m venv failed:\n${made.out}` };
  }
  const pip = await run(
    VENV_PYTHON,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', `weave==${WEAVE_PY_VERSION}`],
    900_000,
  );
  if (!pip.ok) return { ok: false, reason: `pip install weave==${WEAVE_PY_VERSION} failed:\n${pip.out}` };
  const version = await installedVersion();
  if (version !== WEAVE_PY_VERSION)
    return { ok: false, reason: `weave ${version} importable after install, expected ${WEAVE_PY_VERSION}` };
  return { ok: true, python: VENV_PYTHON };
}
