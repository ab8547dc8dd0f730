import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { withFileLock } from './file-lock.js';
import { isCi } from './postgres-server.js';

/**
 * The one Chromium launcher of the browser tests (test/browser, test/ui) and the UI benchmarks,
 * driven through playwright-core (no browser download): the executable at CHROMIUM_PATH, else
 * Debian's /usr/bin/chromium (or /usr/bin/chromium-browser). When it is missing this installs
 * Debian's `chromium` and `fonts-noto-color-emoji` packages (as root, under a file lock so parallel
 * test files install once). With CI=true a missing browser is an error, never a skip.
 */

const execFileP = promisify(execFile);
const DEFAULT_PATH = '/usr/bin/chromium';
const DEFAULT_PATHS = [DEFAULT_PATH, '/usr/bin/chromium-browser'];

/** The Chromium already on this machine (CHROMIUM_PATH first), without installing; null when none. */
export function chromiumPath(): string | null {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return isExecutable(configured) ? configured : null;
  return DEFAULT_PATHS.find(isExecutable) ?? null;
}

let found: Promise<string | null> | undefined;

/** The Chromium executable, installing it when needed; null (outside CI only) when none can be had. */
export function ensureChromium(): Promise<string | null> {
  found ??= findOrInstall().catch((error: unknown) => {
    if (isCi()) throw error;
    process.stderr.write(`Chromium unavailable for browser tests: ${(error as Error).message}\n`);
    return null;
  });
  return found;
}

async function findOrInstall(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured && !isExecutable(configured))
    throw new Error(`CHROMIUM_PATH is not an executable file: ${configured}`);
  const present = chromiumPath();
  if (present) return present;
  await withFileLock('heddle-test-chromium', async () => {
    if (isExecutable(DEFAULT_PATH)) return;
    if (process.getuid?.() !== 0) throw new Error('chromium is not installed and installing it needs root');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await execFileP('apt-get', ['update'], { timeout: 600_000, env });
    await execFileP('apt-get', ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-noto-color-emoji'], {
      timeout: 900_000,
      env,
    });
  });
  if (!isExecutable(DEFAULT_PATH)) throw new Error(`apt-get installed chromium but ${DEFAULT_PATH} is missing`);
  return DEFAULT_PATH;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * A headless Chromium for a caller that closes it (a suite's `after`, a benchmark); throws when
 * none can be had. `--no-sandbox` because tests run as root in containers.
 */
export async function launch(): Promise<Browser> {
  const executablePath = await ensureChromium();
  if (executablePath === null)
    throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return start(executablePath);
}

/**
 * A headless Chromium, closed when the test ends. Null only outside CI when no browser can be had
 * (the caller then skips).
 */
export async function launchBrowser(t: Pick<TestContext, 'after' | 'skip'>): Promise<Browser | null> {
  const executablePath = await ensureChromium();
  if (executablePath === null) {
    t.skip('no Chromium (set CHROMIUM_PATH or install Debian chromium)');
    return null;
  }
  const browser = await start(executablePath);
  t.after(() => browser.close());
  return browser;
}

function start(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
