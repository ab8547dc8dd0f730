/** Minimal Chromium launcher for the UI tests: Debian's chromium through playwright-core. */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export function chromiumPath(): string | null {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && fs.existsSync(p)) return p;
  return null;
}

export async function launch(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
