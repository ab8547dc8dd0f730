/**
 * Where the built web app (web/dist) is served for a Heddle at a URL: by the server itself. Used by
 * the browser tests, the screenshots and bench/ui.ts (so it must not load node:test itself).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'web', 'dist');

export function distBuilt(): boolean {
  return fs.existsSync(path.join(DIST, 'index.html'));
}

/**
 * The URL the browser should open for a Heddle at `heddleUrl`: the server itself, which serves
 * web/dist and the session contract (`GET /auth/session`); a server without it is refused.
 */
export async function serveUi(
  _t: { after: (fn: () => unknown) => void },
  heddleUrl: string,
  _projects: string[] = [],
  _pollMs = 300,
): Promise<string> {
  const probe = await fetch(`${heddleUrl}/auth/session`, { headers: { accept: 'application/json' } });
  await probe.arrayBuffer();
  if (probe.status === 404) throw new Error(`${heddleUrl} has no /auth/session: not a Heddle that serves the web app`);
  return heddleUrl;
}
