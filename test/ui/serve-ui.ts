/**
 * Serves the built web app (web/dist) for a Heddle at a URL: the server itself once it has the
 * session contract, else web/dev/shim.ts and a small static server in front of it. Used by the
 * browser tests, the screenshots and bench/ui.ts (so it must not load node:test itself).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createDevShim } from '../../web/dev/shim.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'web', 'dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export function distBuilt(): boolean {
  return fs.existsSync(path.join(DIST, 'index.html'));
}

/**
 * The URL the browser should open for a Heddle at `heddleUrl`: the server itself when it has the
 * session contract (`GET /auth/session` answers something other than 404), else the dev shim with a
 * static server for web/dist in front of it, closed in `t.after`.
 */
export async function serveUi(
  t: { after: (fn: () => unknown) => void },
  heddleUrl: string,
  projects: string[],
  pollMs = 300,
): Promise<string> {
  const probe = await fetch(`${heddleUrl}/auth/session`, { headers: { accept: 'application/json' } });
  await probe.arrayBuffer();
  if (probe.status !== 404) return heddleUrl;
  const shim = createDevShim({ upstream: heddleUrl, projects, pollMs });
  const csp =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data: blob:";
  const server = http.createServer((req, res) => {
    void shim(req, res, () => {
      const url = new URL(req.url ?? '/', 'http://x');
      let file = path.join(DIST, path.normalize(url.pathname));
      if (!file.startsWith(DIST) || !fs.existsSync(file) || fs.statSync(file).isDirectory())
        file = path.join(DIST, 'index.html');
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'content-security-policy': csp,
      });
      fs.createReadStream(file).pipe(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
