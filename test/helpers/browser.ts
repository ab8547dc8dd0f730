import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { withFileLock } from './file-lock.js';
import { isCi } from './postgres-server.js';

/**
 * Chromium for browser tests, driven through playwright-core (no browser download): the
 * executable at CHROMIUM_PATH, else Debian's /usr/bin/chromium. When it is missing this installs
 * Debian's `chromium` and `fonts-noto-color-emoji` packages (as root, under a file lock so parallel
 * test files install once). With CI=true a missing browser is an error, never a skip.
 */

const execFileP = promisify(execFile);
const DEFAULT_PATH = '/usr/bin/chromium';

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
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`CHROMIUM_PATH is not an executable file: ${configured}`);
    return configured;
  }
  if (isExecutable(DEFAULT_PATH)) return DEFAULT_PATH;
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
 * A headless Chromium, closed when the test ends. Null only outside CI when no browser can be had
 * (the caller then skips); `--no-sandbox` because tests run as root in containers.
 */
export async function launchBrowser(t: Pick<TestContext, 'after' | 'skip'>): Promise<Browser | null> {
  const executablePath = await ensureChromium();
  if (executablePath === null) {
    t.skip('no Chromium (set CHROMIUM_PATH or install Debian chromium)');
    return null;
  }
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  t.after(() => browser.close());
  return browser;
}
