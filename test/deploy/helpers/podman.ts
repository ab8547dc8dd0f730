import fs from 'node:fs';
import path from 'node:path';
import { withFileLock } from '../../helpers/file-lock.js';
import { REPO_ROOT } from '../../helpers/server-process.js';
import { hasCommand, run, type RunResult } from './run.js';

/**
 * Podman for the deploy tests, set up the way ../shared/CONTAINERS.md found works on this machine
 * kind: Debian's podman (installed with apt-get when missing, as root), runc and cgroupfs, file
 * events, and ulimits podman can set here, all in a containers.conf of the checkout's .cache
 * (nothing is written under /etc). Short names in deploy/ (`node:20-bookworm-slim`,
 * `postgres:15`, `haproxy:2.6`) resolve, through aliases in a registries.conf of the same folder, to
 * local stand-ins made from Debian packages (no image registry is reachable here), so the files a
 * user runs are run unchanged.
 */

const CONF_DIR = path.join(REPO_ROOT, '.cache', 'podman');
const PACKAGES = ['podman', 'runc', 'mmdebstrap', 'uidmap', 'fuse-overlayfs'];
const COMMANDS = ['podman', 'runc', 'mmdebstrap'];
/**
 * podman-compose from PyPI: Debian's 1.0.3 leaves the project's network and anonymous volumes
 * behind on `down -v`; 1.6.0 removes them.
 */
export const PODMAN_COMPOSE_VERSION = '1.6.0';
const COMPOSE_VENV = path.join(REPO_ROOT, '.cache', 'venv-compose');
/** Where `podman-compose` is; put it first on PATH. */
export const COMPOSE_BIN_DIR = path.join(COMPOSE_VENV, 'bin');

/** Local stand-ins of the official images deploy/ names, by short name. */
export const LOCAL_IMAGES = {
  debian: 'localhost/heddle-test/debian:bookworm-slim',
  node: 'localhost/heddle-test/node:20-bookworm-slim',
  postgres: 'localhost/heddle-test/postgres:15',
  haproxy: 'localhost/heddle-test/haproxy:2.6',
} as const;

/** The environment every podman and podman-compose command of the tests runs with. */
export function podmanEnv(): NodeJS.ProcessEnv {
  return {
    CONTAINERS_CONF: path.join(CONF_DIR, 'containers.conf'),
    CONTAINERS_REGISTRIES_CONF: path.join(CONF_DIR, 'registries.conf'),
  };
}

function writeConf(): void {
  fs.mkdirSync(CONF_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(CONF_DIR, 'containers.conf'),
    `[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[containers]
default_ulimits = ["nofile=20000:20000", "nproc=16384:16384"]
`,
  );
  const alias = (name: string, image: string): string => `"${name}" = "${image.replace(/:[^:/]+$/, '')}"`;
  fs.writeFileSync(
    path.join(CONF_DIR, 'registries.conf'),
    `unqualified-search-registries = []
short-name-mode = "enforcing"

[aliases]
${alias('node', LOCAL_IMAGES.node)}
${alias('postgres', LOCAL_IMAGES.postgres)}
${alias('haproxy', LOCAL_IMAGES.haproxy)}
`,
  );
}

/** Installs what is missing (apt-get, as root) and writes the configuration; once per machine at a time. */
export async function ensurePodman(): Promise<void> {
  await withFileLock('heddle-test-podman', async () => {
    const missing = [];
    for (const c of COMMANDS) if (!(await hasCommand(c))) missing.push(c);
    if (missing.length > 0) {
      if (process.getuid?.() !== 0) throw new Error(`${missing.join(', ')} missing and installing needs root`);
      await run('apt-get', ['update'], { timeoutMs: 600_000 });
      await run('apt-get', ['install', '-y', ...PACKAGES], { timeoutMs: 900_000 });
    }
    writeConf();
  });
}

/** `podman args` with the tests' configuration. */
export function podman(args: string[], timeoutMs = 120_000): Promise<RunResult> {
  return run('podman', args, { env: podmanEnv(), timeoutMs });
}

export async function imageExists(image: string): Promise<boolean> {
  return podman(['image', 'exists', image]).then(
    () => true,
    () => false,
  );
}

/**
 * podman-compose PODMAN_COMPOSE_VERSION in the checkout's .cache/venv-compose. Its `--version` asks
 * podman too, so podman is installed first (a fresh machine set up both at once and failed).
 */
export async function ensurePodmanCompose(): Promise<void> {
  await ensurePodman();
  const bin = path.join(COMPOSE_BIN_DIR, 'podman-compose');
  const ok = async (): Promise<boolean> =>
    run(bin, ['--version'], { env: podmanEnv() }).then(
      (r) => r.stdout.includes(`podman-compose version ${PODMAN_COMPOSE_VERSION}`),
      () => false,
    );
  if (await ok()) return;
  await withFileLock('heddle-test-podman-compose', async () => {
    if (await ok()) return;
    const python = path.join(COMPOSE_BIN_DIR, 'python');
    if (!fs.existsSync(python)) await run('python3', ['-m', 'venv', COMPOSE_VENV], { timeoutMs: 300_000 });
    await run(
      python,
      ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', `podman-compose==${PODMAN_COMPOSE_VERSION}`],
      { timeoutMs: 600_000 },
    );
    if (!(await ok())) throw new Error(`podman-compose ${PODMAN_COMPOSE_VERSION} not runnable after pip install`);
  });
}
