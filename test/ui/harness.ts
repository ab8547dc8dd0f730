/**
 * Runs the built web app (web/dist) against a real in-process Heddle on a free port, for browser
 * tests and screenshots. While the server has no session endpoints (they arrive from the uiserver
 * branch), web/dev/shim.ts and a small static server stand in front of it; once `GET /auth/session`
 * exists, Heddle serves the app itself and the shim is skipped.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildTestApp } from '../helpers/app.js';
import { createDevShim } from '../../web/dev/shim.js';
import { PROJECT, seed, type Seeded } from './seed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'web', 'dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface UiServer {
  url: string;
  key: string;
  seeded: Seeded;
  heddleUrl: string;
}

export function distBuilt(): boolean {
  return fs.existsSync(path.join(DIST, 'index.html'));
}

export async function startUi(
  t: Pick<TestContext, 'after'>,
  opts: { roots?: number; bigTrace?: number } = {},
): Promise<UiServer> {
  const heddle = await buildTestApp(t);
  await heddle.app.listen({ port: 0, host: '127.0.0.1' });
  const heddleUrl = `http://127.0.0.1:${(heddle.app.server.address() as AddressInfo).port}`;
  const seeded = await seed(heddleUrl, heddle.aliceKey, opts);
  const url = await serveUi(t, heddleUrl, [PROJECT]);
  return { url, key: heddle.aliceKey, seeded, heddleUrl };
}

/**
 * The URL the browser should open for a Heddle at `heddleUrl`: the server itself when it has the
 * session contract (`GET /auth/session` answers something other than 404), else the dev shim with a
 * static server for web/dist in front of it, closed in `t.after`.
 */
export async function serveUi(
  t: Pick<TestContext, 'after'>,
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
