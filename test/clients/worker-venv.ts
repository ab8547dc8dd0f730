import fs from 'node:fs';
import path from 'node:path';
import { withFileLock } from '../helpers/file-lock.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { run, type VenvResult } from './python-venv.js';

/**
 * The Python training worker's virtualenv (worker/pyproject.toml pins the same versions). PyPI's
 * torch wheel pulls the CUDA libraries as dependencies, so the venv is about 5.6 GiB: measured on
 * the development machine, the first install took 113 s (pip, downloads included) and a later run only
 * checks the imports (9–11 s at load average 9 on the 2-core VM). The worker package itself runs from worker/ via PYTHONPATH.
 */
export const WORKER_PACKAGES = ['torch==2.15.0', 'transformers==5.24.0', 'peft==0.21.2'];

/** Gitignored; reused between runs once the pinned packages import. */
export const WORKER_VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-worker');
const WORKER_PYTHON = path.join(WORKER_VENV_DIR, 'bin', 'python');
export const WORKER_SRC = path.join(REPO_ROOT, 'worker');

const CHECK =
  'import importlib.metadata as m, torch, transformers, peft; print(" ".join(f"{p}=={m.version(p)}" for p in ("torch", "transformers", "peft")))';

async function installed(): Promise<string | null> {
  if (!fs.existsSync(WORKER_PYTHON)) return null;
  const res = await run(WORKER_PYTHON, ['-c', CHECK], 180_000);
  return res.ok ? (res.out.trim().split('\n').at(-1) ?? null) : null;
}

const wanted = (): string => WORKER_PACKAGES.join(' ');

/** A base interpreter (>= 3.10, with venv) for the worker. */
async function basePython(): Promise<string | null> {
  const probe = 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)';
  for (const candidate of ['python3.12', 'python3.11', 'python3.10', 'python3']) {
    if ((await run(candidate, ['-c', probe], 30_000)).ok) return candidate;
  }
  if (process.env.CI === 'true' && process.getuid?.() === 0) {
    await run('apt-get', ['update'], 300_000);
    const apt = await run('apt-get', ['install', '-y', 'python3', 'python3-venv', 'python3-pip'], 600_000);
    if (apt.ok && (await run('python3', ['-c', probe], 30_000)).ok) return 'python3';
  }
  return null;
}

/**
 * Makes sure `.cache/venv-worker` holds the pinned torch, transformers and peft, creating or
 * repairing it with pip under a machine-wide lock. `ok: false` carries the reason (no interpreter,
 * no network); the caller fails under CI=true and may skip otherwise.
 */
export async function ensureWorkerVenv(): Promise<VenvResult> {
  if ((await installed()) === wanted()) return { ok: true, python: WORKER_PYTHON };
  return withFileLock('heddle-test-venv-worker', async () => {
    if ((await installed()) === wanted()) return { ok: true, python: WORKER_PYTHON };
    if (!fs.existsSync(WORKER_PYTHON)) {
      const base = await basePython();
      if (base === null) return { ok: false, reason: 'no Python >= 3.10 interpreter with the venv module' };
      fs.mkdirSync(path.dirname(WORKER_VENV_DIR), { recursive: true });
      const made = await run(base, ['-m', 'venv', WORKER_VENV_DIR], 300_000);
      if (!made.ok) return { ok: false, reason: `${base} -m venv failed:\n${made.out}` };
    }
    const pip = await run(
      WORKER_PYTHON,
      ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...WORKER_PACKAGES],
      1_800_000,
    );
    if (!pip.ok) return { ok: false, reason: `pip install ${wanted()} failed:\n${pip.out}` };
    const got = await installed();
    if (got !== wanted()) return { ok: false, reason: `after install: ${got}, expected ${wanted()}` };
    return { ok: true, python: WORKER_PYTHON };
  });
}
