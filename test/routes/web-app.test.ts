import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { CONTENT_SECURITY_POLICY } from '../../src/plugins/web-app.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** The web app served by the API process: index.html fallback, assets, security headers, no traversal. */

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
const SECRET = 'TOP-SECRET-OUTSIDE-THE-BUILD';

/** A fake build: `<tmp>/dist/{index.html, favicon.svg, assets/app-abc123.js}` with a secret beside dist. */
function fakeBuild(t: TestContext): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-web-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dist = path.join(root, 'dist');
  fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Heddle app</title><div id="root"></div>');
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log("app")');
  fs.writeFileSync(path.join(root, 'secret.txt'), SECRET);
  fs.writeFileSync(path.join(dist, 'assets', '.hidden'), SECRET);
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(dist, 'assets', 'link.js'));
  return dist;
}

function assertSecurityHeaders(res: { headers: Record<string, unknown> }, what: string): void {
  assert.equal(res.headers['content-security-policy'], CSP, what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['referrer-policy'], 'same-origin', what);
}

const html = (h: TestApp, url: string) =>
  h.app.inject({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });

/** A raw HTTP request (no client-side path normalisation), for traversal attempts. */
async function rawGet(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

test('the CSP constant is the contract text', () => {
  assert.equal(CONTENT_SECURITY_POLICY, CSP);
});

test('GET / and the links the official clients print answer index.html with the security headers', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: fakeBuild(t) });
  const root = await h.app.inject({ method: 'GET', url: '/' });
  assert.equal(root.statusCode, 200);
  assert.match(root.body, /Heddle app/);
  assert.match(String(root.headers['content-type']), /^text\/html/);
  assertSecurityHeaders(root, '/');
  for (const url of [
    '/acme/demo/weave',
    '/acme/demo/r/call/0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    '/acme/demo/weave/objects/my-dataset/versions/abc123def456',
    '/acme/demo/weave/ops/predict/versions/abc123def456',
    '/acme/demo/weave/traces?filter=%7B%7D',
  ]) {
    const res = await html(h, url);
    assert.equal(res.statusCode, 200, url);
    assert.match(res.body, /Heddle app/, url);
    assertSecurityHeaders(res, url);
    assert.equal(res.headers['cache-control'], 'no-cache');
  }
});

test('API 404s stay JSON: no text/html in Accept, other methods, API paths and missing assets', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: fakeBuild(t) });
  const json = await h.app.inject({ method: 'GET', url: '/acme/demo/weave', headers: { accept: 'application/json' } });
  assert.equal(json.statusCode, 404);
  assert.deepEqual(json.json(), { detail: 'Not Found' });
  const post = await h.app.inject({
    method: 'POST',
    url: '/acme/demo/weave',
    headers: { accept: 'text/html', 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(post.statusCode, 404);
  assert.deepEqual(post.json(), { detail: 'Not Found' });
  const wrongMethod = await html(h, '/calls/stream_query');
  assert.equal(wrongMethod.statusCode, 405, 'a known API path keeps its 405');
  const asset = await html(h, '/assets/missing-abc.js');
  assert.equal(asset.statusCode, 404);
  assert.deepEqual(asset.json(), { detail: 'Not Found' });
});

test('assets are served with immutable caching and the right type; top-level build files too', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: fakeBuild(t) });
  const res = await h.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body, 'console.log("app")');
  assert.match(String(res.headers['content-type']), /^text\/javascript/);
  assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  assertSecurityHeaders(res, 'asset');
  const icon = await h.app.inject({ method: 'GET', url: '/favicon.svg' });
  assert.equal(icon.statusCode, 200);
  assert.equal(icon.headers['content-type'], 'image/svg+xml');
  assertSecurityHeaders(icon, 'favicon');
});

test('no path reaches a file outside the build (encoded dots, backslashes, links, NUL)', async (t) => {
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: fakeBuild(t) });
  const port = Number(new URL(await h.app.listen({ port: 0, host: '127.0.0.1' })).port);
  const targets = [
    '/assets/../../secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets/....//....//secret.txt',
    '/assets/%252e%252e/%252e%252e/secret.txt',
    '/assets/link.js',
    '/assets/app-abc123.js%00.txt',
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/secret.txt',
    '//etc/passwd',
    '/assets//etc/passwd',
    '/assets/%2fetc%2fpasswd',
  ];
  for (const target of targets) {
    const answer = await rawGet(port, target);
    assert.ok(!answer.includes(SECRET), `${target} leaked the file outside the build`);
    assert.ok(!answer.includes('root:x:0:0'), `${target} leaked /etc/passwd`);
    const injected = await html(h, target);
    assert.ok(!injected.body.includes(SECRET), `${target} (inject) leaked`);
  }
});

test('without a build, / answers a short page saying how to build the UI', async (t) => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-noweb-'));
  t.after(() => fs.rmSync(empty, { recursive: true, force: true }));
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: empty });
  const res = await h.app.inject({ method: 'GET', url: '/' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /web UI is not built/);
  assert.match(res.body, /npm run build/);
  assert.doesNotMatch(res.body, /<script/i);
  assertSecurityHeaders(res, 'not built');
  const deep = await html(h, '/acme/demo/weave');
  assert.equal(deep.statusCode, 200);
  assert.match(deep.body, /not built/);
});

test('the OpenAPI document lists the web UI routes and hides the static ones', async (t) => {
  const h = await buildTestApp(t);
  const doc = (await h.get('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  for (const [p, method] of [
    ['/auth/session', 'post'],
    ['/auth/session', 'get'],
    ['/auth/session', 'delete'],
    ['/projects', 'get'],
    ['/calls/live_tail', 'get'],
  ] as const) {
    assert.ok(doc.paths[p]?.[method], `${method.toUpperCase()} ${p} in /openapi.json`);
  }
  assert.equal(doc.paths['/assets/{*}'], undefined);
  assert.equal(doc.paths['/'], undefined);
});

test('precompressed copies: br, then gzip, as Accept-Encoding allows; q=0 refuses; Vary always', async (t) => {
  const dist = fakeBuild(t);
  const { brotliCompressSync, gzipSync, gunzipSync, brotliDecompressSync } = await import('node:zlib');
  const js = path.join(dist, 'assets', 'app-abc123.js');
  fs.writeFileSync(`${js}.br`, brotliCompressSync(fs.readFileSync(js)));
  fs.writeFileSync(`${js}.gz`, gzipSync(fs.readFileSync(js)));
  const h = await buildTestApp(t, { HEDDLE_WEB_DIR: dist });
  const get = (enc: string | undefined) =>
    h.app.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: enc === undefined ? {} : { 'accept-encoding': enc },
    });
  const br = await get('gzip, deflate, br');
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(br.headers.vary, 'accept-encoding');
  assert.equal(brotliDecompressSync(br.rawPayload).toString(), 'console.log("app")');
  const gz = await get('gzip, br;q=0');
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.rawPayload).toString(), 'console.log("app")');
  for (const enc of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
    const plain = await get(enc);
    assert.equal(plain.headers['content-encoding'], undefined, String(enc));
    assert.equal(plain.headers.vary, 'accept-encoding');
    assert.equal(plain.body, 'console.log("app")');
  }
  // a file without copies is sent as it is, without Vary
  const favicon = await h.app.inject({ method: 'GET', url: '/favicon.svg', headers: { 'accept-encoding': 'br' } });
  assert.equal(favicon.headers['content-encoding'], undefined);
  assert.equal(favicon.headers.vary, undefined);
});
