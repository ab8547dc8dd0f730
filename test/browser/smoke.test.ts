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
