/**
 * Browser tests of the settings page: an API key created from the page works against the API, and
 * once revoked from the page the API refuses it; a project price added from the page is what
 * `/cost/query` returns. Against a real in-process Heddle; skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: settings', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const cleanups: (() => unknown)[] = [];
  const call = (key: string, path: string, body: unknown) =>
    fetch(ui.heddleUrl + path, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 20, bigTrace: 10 });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test('create a key, use it, revoke it, and the API refuses it', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys of acme' }).waitFor();
    await page.getByLabel('User').fill('ci-bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByLabel('New API key').innerText()).trim();
    assert.match(secret, /^\S{20,}$/);
    const stats = { project_id: PROJECT };
    const before = await call(secret, '/calls/query_stats', stats);
    assert.equal(before.status, 200, 'the new key works');
    await before.arrayBuffer();

    await page.getByRole('button', { name: 'Done' }).click();
    const table = page.getByRole('table', { name: 'API keys' });
    const row = table.getByRole('row').filter({ hasText: 'ci-bot' });
    await row.getByText('Active').waitFor();
    assert.ok(secret.startsWith((await row.locator('th').innerText()).replace('…', '')), 'listed by its prefix');
    assert.equal((await page.content()).includes(secret), false, 'the secret is not on the page any more');
    await row.getByRole('button', { name: /^Revoke key/ }).click();
    await row.getByRole('button', { name: /^Confirm revoke/ }).click();
    await row.getByText(/^Revoked/).waitFor();

    const afterRevoke = await call(secret, '/calls/query_stats', stats);
    assert.equal(afterRevoke.status, 401, 'the revoked key is refused');
    await afterRevoke.arrayBuffer();
  });

  test('add a project price; /cost/query returns it per token', async () => {
    await page.goto(`${ui.url}/${PROJECT}/settings`);
    await page.getByRole('table', { name: 'Prices' }).getByText('gpt-4o-mini').waitFor();
    await page.getByLabel('Model').fill('my-llm');
    await page.getByLabel('Prompt $/1M').fill('2.5');
    await page.getByLabel('Completion $/1M').fill('10');
    await page.getByLabel('From').fill('2026-01-01');
    await page.getByRole('button', { name: 'Add price' }).click();
    const row = page.getByRole('table', { name: 'Prices' }).getByRole('row').filter({ hasText: 'my-llm' });
    await row.waitFor();
    assert.match(await row.innerText(), /my-llm\s+\$2\.5\s+\$10\s+01 Jan 2026, 00:00:00/);
    const r = await call(ui.key, '/cost/query', { project_id: PROJECT });
    const { results } = (await r.json()) as {
      results: { llm_id: string; prompt_token_cost: number; completion_token_cost: number }[];
    };
    const mine = results.find((x) => x.llm_id === 'my-llm');
    assert.ok(mine);
    assert.ok(Math.abs(mine.prompt_token_cost - 2.5e-6) < 1e-12);
    assert.ok(Math.abs(mine.completion_token_cost - 1e-5) < 1e-12);
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/settings`);
      await page.getByRole('table', { name: 'API keys' }).waitFor();
      await page.getByRole('table', { name: 'Prices' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[settings, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
