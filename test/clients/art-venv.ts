import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withFileLock } from '../helpers/file-lock.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { run, type VenvResult } from './python-venv.js';

/**
 * The pinned OpenPipe ART client (docs/art-client.md): the newest PyPI release, and its
 * ServerlessBackend speaks the /v1/preview/... routes. Its base install pulls no torch/vLLM/unsloth
 * (those are extras), so the plain `pip install openpipe-art==X` is what the test uses.
 */
export const ART_VERSION = '0.5.23';

/**
 * model.log() writes its trajectories as parquet with pyarrow, which ART lists only under its
 * heavy `backend` extra (torch, unsloth, ...); the base install cannot log without it.
 */
const EXTRA_PACKAGES = ['pyarrow==26.0.1'];

/** ART 0.5.20 and newer declare Requires-Python >= 3.12. */
const MIN_PYTHON: [number, number] = [3, 12];

/** Gitignored; reused between runs once the pinned package imports. */
export const ART_VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-art');
const ART_PYTHON = path.join(ART_VENV_DIR, 'bin', 'python');

const CHECK_IMPORT =
  'import importlib.metadata as m, pyarrow; from art.serverless.backend import ServerlessBackend; print(m.version("openpipe-art"))';

async function installedVersion(): Promise<string | null> {
  if (!fs.existsSync(ART_PYTHON)) return null;
  const res = await run(ART_PYTHON, ['-c', CHECK_IMPORT], 120_000);
  return res.ok ? (res.out.trim().split('\n').at(-1) ?? null) : null;
}

/** True when `candidate` runs, is at least MIN_PYTHON and can make virtualenvs. */
async function usable(candidate: string): Promise<boolean> {
  const [major, minor] = MIN_PYTHON;
  const probe = `import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (${major}, ${minor}) else 1)`;
  return (await run(candidate, ['-c', probe], 30_000)).ok;
}

/**
 * Interpreters to try, newest first: versioned names on PATH, then pyenv-installed versions (this
 * machine kind's default `python3` is 3.11, while pyenv also carries 3.12 and 3.13).
 */
function candidates(): string[] {
  const found = ['python3.14', 'python3.13', 'python3.12', 'python3'];
  const pyenvRoot = process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv');
  const versions = path.join(pyenvRoot, 'versions');
  if (fs.existsSync(versions)) {
    const dirs = fs.readdirSync(versions).filter((d) => /^3\.\d+\.\d+$/.test(d));
    dirs.sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
    for (const d of dirs) found.push(path.join(versions, d, 'bin', 'python3'));
  }
  return found;
}

async function basePython(): Promise<string | null> {
  for (const candidate of candidates()) {
    if (await usable(candidate)) return candidate;
  }
  return null;
}

/**
 * Makes sure `.cache/venv-art` holds openpipe-art==ART_VERSION, creating or repairing it with pip
 * under a machine-wide lock. Returns `ok: false` with the reason when impossible (no Python ≥ 3.12,
 * no network); the caller fails under CI=true and may skip otherwise.
 */
export async function ensureArtVenv(): Promise<VenvResult> {
  if ((await installedVersion()) === ART_VERSION) return { ok: true, python: ART_PYTHON };
  return withFileLock('heddle-test-venv-art', async () => {
    if ((await installedVersion()) === ART_VERSION) return { ok: true, python: ART_PYTHON };
    return buildArtVenv();
  });
}

async function buildArtVenv(): Promise<VenvResult> {
  if (fs.existsSync(ART_PYTHON) && !(await usable(ART_PYTHON)))
    fs.rmSync(ART_VENV_DIR, { recursive: true, force: true });
  if (!fs.existsSync(ART_PYTHON)) {
    const base = await basePython();
    if (base === null)
      return {
        ok: false,
        reason: `no Python >= ${MIN_PYTHON.join('.')} interpreter with the venv module (tried ${candidates().join(', ')})`,
      };
    fs.mkdirSync(path.dirname(ART_VENV_DIR), { recursive: true });
    const made = await run(base, ['-m', 'venv', ART_VENV_DIR], 300_000);
    if (!made.ok) return { ok: false, reason: `${base} -m venv failed:\n${made.out}` };
  }
  const specs = [`openpipe-art==${ART_VERSION}`, ...EXTRA_PACKAGES];
  const pip = await run(ART_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...specs], 900_000);
  if (!pip.ok) return { ok: false, reason: `pip install ${specs.join(' ')} failed:\n${pip.out}` };
  const version = await installedVersion();
  if (version !== ART_VERSION)
    return { ok: false, reason: `openpipe-art ${version} importable after install, expected ${ART_VERSION}` };
  return { ok: true, python: ART_PYTHON };
}
