/**
 * Runs the built web app (web/dist) against a real in-process Heddle on a free port, for browser
 * tests and screenshots; Heddle serves the app itself.
 */
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { chromiumPath, ensureChromium } from '../helpers/browser.js';
import type { Trainer } from '../../src/training/trainer-port.js';
import { PROJECT, seed, type Seeded } from './seed.js';
import { distBuilt, serveUi } from './serve-ui.js';

export { DIST, distBuilt, serveUi } from './serve-ui.js';

/**
 * Why the browser suites cannot run here (no Chromium, web/dist not built), or false. Under CI=true
 * nothing is skipped: web/dist is built and Chromium installed when missing.
 */
export async function uiSkipReason(): Promise<string | false> {
  const ci = process.env.CI === 'true';
  if (ci && !distBuilt()) execSync('npm run build:web', { stdio: 'inherit' });
  if (!(ci ? await ensureChromium() : chromiumPath())) return 'Chromium not installed (apt-get install -y chromium)';
  return distBuilt() ? false : 'web/dist not built (npm run build:web)';
}

/** Signs in on the app at `url` with `key` and waits for the projects page. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

export interface UiServer {
  url: string;
  key: string;
  seeded: Seeded;
  heddleUrl: string;
  /** A new key of a viewer of acme: reads every project, writes none. */
  viewerKey(username: string): Promise<string>;
  /** POSTs JSON to the API as alice and answers the parsed body; fails the test unless it is a 200. */
  post(path: string, body: unknown): Promise<Record<string, any>>;
  /** The in-process Heddle, for the route tests' fixtures (`h.post` as alice). */
  heddle: TestApp;
}

export async function startUi(
  t: Pick<TestContext, 'after'>,
  opts: { roots?: number; bigTrace?: number; trainer?: Trainer; env?: Record<string, string> } = {},
): Promise<UiServer> {
  const heddle = await buildTestApp(t, opts.env ?? {}, { trainer: opts.trainer });
  await heddle.app.listen({ port: 0, host: '127.0.0.1' });
  const heddleUrl = `http://127.0.0.1:${(heddle.app.server.address() as AddressInfo).port}`;
  const seeded = await seed(heddleUrl, heddle.aliceKey, opts);
  const url = await serveUi(t, heddleUrl, [PROJECT]);
  const viewerKey = async (username: string): Promise<string> => {
    const { key, record } = await heddle.app.services.auth.createKey({ entity: 'acme', username });
    await heddle.store.auth.setMembershipRole(record.userId, 'acme', 'viewer');
    return key;
  };
  const post = async (path: string, body: unknown): Promise<Record<string, any>> => {
    const r = await fetch(heddleUrl + path, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${heddle.aliceKey}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    assert.equal(r.status, 200, `${path}: ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, any>;
  };
  return { url, key: heddle.aliceKey, seeded, heddleUrl, viewerKey, post, heddle };
}
