import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Serves the built web app (`web/dist`, built by `npm run build` in `web/`): hashed assets under
 * `/assets/*` with immutable caching, top-level files of the build (favicon and the like), and
 * `index.html` for `GET /` and for any browser navigation (a GET accepting text/html) that no API
 * route matched, so the links the official clients print open in the app. API 404s stay JSON.
 * Every answer carries a Content-Security-Policy that forbids inline script.
 */

/** The checkout's `web/dist` (this file is src/plugins/web-app.ts). */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'dist');

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Heddle</title></head>
<body>
<h1>Heddle</h1>
<p>The web UI is not built. The API works as usual.</p>
<p>To build the UI, run <code>npm ci &amp;&amp; npm run build</code> in the <code>web/</code> folder of the Heddle
checkout (it writes <code>web/dist</code>), or point <code>HEDDLE_WEB_DIR</code> at a built copy. No restart is needed.</p>
</body>
</html>
`;

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

/** `file` when it is a regular file inside `root` (after resolving links), else null. */
function containedFile(root: string, relative: string): string | null {
  if (relative.includes('\0')) return null;
  const file = path.resolve(root, relative);
  if (!file.startsWith(root + path.sep)) return null;
  try {
    const real = fs.realpathSync(file);
    const realRoot = fs.realpathSync(root);
    if (!real.startsWith(realRoot + path.sep) || !fs.statSync(real).isFile()) return null;
    return real;
  } catch {
    return null;
  }
}

/** Precompressed copies the build writes, best first. */
const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The codings an Accept-Encoding header accepts (RFC 9110 §12.5.3: `q=0` refuses one). */
export function acceptedEncodings(header: string | string[] | undefined): Set<string> {
  const out = new Set<string>();
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name === '' || (q !== undefined && Number(q.slice(2)) === 0)) continue;
    out.add(name === 'x-gzip' ? 'gzip' : name);
  }
  if (out.has('*')) for (const e of PRECOMPRESSED) out.add(e.encoding);
  return out;
}

export class WebApp {
  readonly #root: string;

  constructor(webDir: string | null) {
    this.#root = path.resolve(webDir ?? DEFAULT_WEB_DIR);
  }

  /** `index.html`, or the page saying the UI is not built. */
  sendIndex(reply: FastifyReply): FastifyReply {
    securityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    const index = containedFile(this.#root, 'index.html');
    if (index === null) return reply.code(200).send(NOT_BUILT_PAGE);
    return reply.code(200).send(fs.readFileSync(index));
  }

  /**
   * A file under the build root (`assets/…` or a top-level file); false when there is none. The
   * build writes brotli and gzip copies beside each text asset (web/vite.config.ts); the one the
   * client accepts is sent with its Content-Encoding, and `Vary` tells caches the answer depends on it.
   */
  sendFile(
    reply: FastifyReply,
    relative: string,
    immutable: boolean,
    acceptEncoding: string | string[] | undefined = undefined,
  ): FastifyReply | false {
    const file = containedFile(this.#root, relative);
    if (file === null) return false;
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    securityHeaders(reply)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(type);
    const encoded = this.#precompressed(file, acceptEncoding);
    if (encoded !== null) reply.header('vary', 'accept-encoding');
    if (encoded === null || encoded.file === null) return reply.code(200).send(fs.createReadStream(file));
    return reply
      .code(200)
      .header('content-encoding', encoded.encoding)
      .header('content-length', fs.statSync(encoded.file).size)
      .send(fs.createReadStream(encoded.file));
  }

  /**
   * The precompressed copy of `file` to send (null `file`: copies exist, none accepted), or null
   * when the build wrote none. The copies lie beside the file, so they are inside the root too.
   */
  #precompressed(
    file: string,
    acceptEncoding: string | string[] | undefined,
  ): { encoding: string; file: string | null } | null {
    const copies = PRECOMPRESSED.filter((e) => isFile(file + e.suffix));
    if (copies.length === 0) return null;
    const accepted = acceptedEncodings(acceptEncoding);
    const pick = copies.find((e) => accepted.has(e.encoding));
    return pick ? { encoding: pick.encoding, file: file + pick.suffix } : { encoding: 'identity', file: null };
  }

  /**
   * The not-found fallback: a top-level build file, else `index.html` for a browser navigation.
   * Returns false to leave the request to the JSON 404.
   */
  fallback(request: FastifyRequest, reply: FastifyReply): FastifyReply | false {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const [pathname = ''] = request.url.split('?');
    const single = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(pathname);
    const file = single?.[1];
    if (file !== undefined && file !== 'index.html') {
      const sent = this.sendFile(reply, file, false, request.headers['accept-encoding']);
      if (sent) return sent;
    }
    if (pathname.startsWith('/assets/')) return false;
    if (!(request.headers.accept ?? '').includes('text/html')) return false;
    return this.sendIndex(reply);
  }
}

/** Registers `GET /` and `GET /assets/*`; the not-found handler calls `fallback` (error-handler.ts). */
export function registerWebApp(app: FastifyInstance, webApp: WebApp): void {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    webApp.sendIndex(reply),
  );
  app.get('/assets/*', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const relative = (request.params as { '*': string })['*'];
    const sent = webApp.sendFile(reply, path.join('assets', relative), true, request.headers['accept-encoding']);
    if (sent) return sent;
    return reply.code(404).send({ detail: 'Not Found' });
  });
}
