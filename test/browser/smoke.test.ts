import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { launchBrowser } from '../helpers/browser.js';
import { startServerProcess } from '../helpers/server-process.js';

/**
 * A real Heddle process opened in Chromium: `/` renders (the built app, or the page saying it is
 * not built) under the Content-Security-Policy, and no script runs inline. The web app's own page
 * tests build on test/helpers/browser.ts.
 */

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

test('Chromium opens / on a real Heddle: CSP header set, the page renders', { timeout: 180_000 }, async (t) => {
  const browser = await launchBrowser(t);
  if (!browser) return;
  // a fake build whose script is external (allowed) and whose inline script must be blocked
  const web = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-web-smoke-'));
  t.after(() => fs.rmSync(web, { recursive: true, force: true }));
  fs.mkdirSync(path.join(web, 'assets'));
  fs.writeFileSync(
    path.join(web, 'index.html'),
    '<!doctype html><html><head><title>Heddle</title><script type="module" src="/assets/app-1.js"></script>' +
      '<script>document.title = "inline ran"</script></head><body><h1 id="h">static</h1></body></html>',
  );
  fs.writeFileSync(path.join(web, 'assets', 'app-1.js'), 'document.getElementById("h").textContent = "built app";');

  const built = await startServerProcess(t, { env: { HEDDLE_WEB_DIR: web } });
  const page = await browser.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto(`${built.url}/acme/demo/weave`);
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()['content-security-policy'], CSP);
  await page.waitForFunction(() => document.getElementById('h')?.textContent === 'built app');
  assert.equal(await page.title(), 'Heddle', 'the inline script was blocked');
  assert.ok(violations.length > 0, 'Chromium reported the blocked inline script');

  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-web-none-'));
  t.after(() => fs.rmSync(empty, { recursive: true, force: true }));
  const bare = await startServerProcess(t, { env: { HEDDLE_WEB_DIR: empty } });
  const notBuilt = await page.goto(`${bare.url}/`);
  assert.equal(notBuilt?.headers()['content-security-policy'], CSP);
  assert.match(await page.locator('body').innerText(), /web UI is not built/);
});

test(
  'in Chromium: sign in, the cookie is HttpOnly, EventSource tails calls with it',
  { timeout: 180_000 },
  async (t) => {
    const browser = await launchBrowser(t);
    if (!browser) return;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-web-none-'));
    t.after(() => fs.rmSync(empty, { recursive: true, force: true }));
    const server = await startServerProcess(t, { env: { HEDDLE_WEB_DIR: empty } });
    const key = await server.createKey('acme', { user: 'alice' });
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);

    const signedIn = await page.evaluate(async (apiKey) => {
      const res = await fetch('/auth/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: apiKey }),
      });
      return { status: res.status, body: await res.text(), cookie: document.cookie };
    }, key);
    assert.equal(signedIn.status, 200, signedIn.body);
    assert.equal(signedIn.cookie, '', 'scripts cannot read the HttpOnly session cookie');

    // the page's own POSTs carry the cookie and the CSRF header
    const posted = await page.evaluate(async () => {
      const start = { project_id: 'acme/demo', id: 'from-page', trace_id: 't', op_name: 'op' };
      const body = JSON.stringify({
        start: { ...start, started_at: '2025-01-01T00:00:00Z', attributes: {}, inputs: {} },
      });
      const headers = { 'content-type': 'application/json' };
      const refused = await fetch('/call/start', { method: 'POST', headers, body });
      const accepted = await fetch('/call/start', {
        method: 'POST',
        headers: { ...headers, 'x-heddle-csrf': '1' },
        body,
      });
      return [refused.status, accepted.status];
    });
    assert.deepEqual(posted, [403, 200]);

    const event = page.evaluate(
      () =>
        new Promise<string>((resolve, reject) => {
          const source = new EventSource('/calls/live_tail?project_id=acme%2Fdemo');
          source.addEventListener('open', () => {
            void fetch('/call/start', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-heddle-csrf': '1' },
              body: JSON.stringify({
                start: {
                  project_id: 'acme/demo',
                  id: 'tailed',
                  trace_id: 't2',
                  op_name: 'op',
                  started_at: '2025-01-01T00:00:00Z',
                  attributes: {},
                  inputs: {},
                },
              }),
            });
          });
          source.addEventListener('call', (e) => {
            source.close();
            resolve((e as MessageEvent<string>).data);
          });
          setTimeout(() => reject(new Error('no call event within 5 s')), 5000);
        }),
    );
    assert.equal((JSON.parse(await event) as { id: string }).id, 'tailed');

    const out = await page.evaluate(async () => {
      const res = await fetch('/auth/session', { method: 'DELETE', headers: { 'x-heddle-csrf': '1' } });
      const after = await fetch('/auth/session');
      return [res.status, after.status];
    });
    assert.deepEqual(out, [204, 401]);
  },
);
