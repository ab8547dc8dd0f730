/**
 * Minimal Chromium launcher for the UI tests: Debian's chromium through playwright-core (which
 * downloads no browser of its own). With CI=true a missing Chromium is installed with apt-get, as
 * the PostgreSQL helper does, so nothing is skipped there.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export function chromiumPath(): string | null {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && fs.existsSync(p)) return p;
  return null;
}

/** The Chromium path; under CI (or HEDDLE_INSTALL_CHROMIUM=1) installs Debian's package when missing. */
export function ensureChromium(): string | null {
  const found = chromiumPath();
  if (found || (process.env.CI !== 'true' && process.env.HEDDLE_INSTALL_CHROMIUM !== '1')) return found;
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-noto-color-emoji'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return chromiumPath();
}

export async function launch(): Promise<Browser> {
  const executablePath = ensureChromium();
  if (!executablePath) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
