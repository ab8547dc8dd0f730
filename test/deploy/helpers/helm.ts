import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withFileLock } from '../../helpers/file-lock.js';
import { REPO_ROOT } from '../../helpers/server-process.js';
import { hasCommand, run } from './run.js';

/**
 * Helm and kubernetes-validate for the chart tests, installed when missing: Helm built from the Go
 * module proxy (`go install helm.sh/helm/v3/cmd/helm@HELM_VERSION`, minutes on two cores) into a
 * cache outside the checkout that later runs and fresh clones on this machine reuse, and
 * kubernetes-validate from PyPI in the checkout's .cache. No cluster is needed by either.
 */

export const HELM_VERSION = 'v3.22.0';
export const KUBE_VALIDATE_VERSION = '1.37.0';
/** The Kubernetes release the manifests are validated for. */
export const KUBE_VERSION = '1.37.0';

const cacheHome = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
export const HELM_DIR = path.join(cacheHome, 'heddle-test', `helm-${HELM_VERSION}`);
const HELM = path.join(HELM_DIR, 'helm');
const VALIDATE_VENV = path.join(REPO_ROOT, '.cache', 'venv-kubevalidate');
export const VALIDATE_PYTHON = path.join(VALIDATE_VENV, 'bin', 'python');

async function works(file: string, args: string[]): Promise<boolean> {
  return run(file, args, { timeoutMs: 60_000 }).then(
    () => true,
    () => false,
  );
}

/** The helm binary, built once into HELM_DIR. */
export async function ensureHelm(): Promise<string> {
  if (await works(HELM, ['version', '--short'])) return HELM;
  return withFileLock('heddle-test-helm', async () => {
    if (await works(HELM, ['version', '--short'])) return HELM;
    if (!(await hasCommand('go'))) throw new Error('building helm needs Go (go.dev/dl); none on PATH');
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-helm-build-'));
    try {
      fs.mkdirSync(HELM_DIR, { recursive: true });
      await run('go', ['install', '-trimpath', '-ldflags=-s -w', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
        cwd: scratch,
        env: {
          GOBIN: HELM_DIR,
          GOMODCACHE: path.join(scratch, 'mod'),
          GOCACHE: path.join(scratch, 'build'),
          GOFLAGS: '-buildvcs=false -modcacherw',
        },
        timeoutMs: 20 * 60_000,
      });
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    return HELM;
  });
}

/** A virtualenv with kubernetes-validate (which brings PyYAML, used to read rendered manifests). */
export async function ensureKubeValidate(): Promise<string> {
  const bin = path.join(VALIDATE_VENV, 'bin', 'kubernetes-validate');
  const ok = async (): Promise<boolean> =>
    (await works(bin, ['--version'])) && (await run(bin, ['--version'])).stdout.includes(KUBE_VALIDATE_VERSION);
  if (await ok()) return bin;
  return withFileLock('heddle-test-kubevalidate', async () => {
    if (await ok()) return bin;
    if (!fs.existsSync(VALIDATE_PYTHON)) await run('python3', ['-m', 'venv', VALIDATE_VENV], { timeoutMs: 300_000 });
    await run(
      VALIDATE_PYTHON,
      ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', `kubernetes-validate==${KUBE_VALIDATE_VERSION}`],
      { timeoutMs: 600_000 },
    );
    return bin;
  });
}
