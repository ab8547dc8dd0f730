/**
 * Browser tests of the monitors page (issue 33): a real online monitor scores calls through a
 * loopback OpenAI-compatible judge (test/routes/evaluations-server-fixture.ts), and the page shows
 * its state, filter, sampling and scorers, its scored calls with their scores and lag, and turns it
 * off; a viewer reads it all but changes nothing. Skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';
import { startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { monitorEnv, scoredCallId as callId, seedMonitors, SUMS } from './seed-monitors.js';

const skip = await uiSkipReason();

describe('web UI: monitors and their scored calls', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const ctx = { after: (fn: () => unknown) => void cleanups.push(fn) };

  before(async () => {
    const judgeServer = await startFakeOpenAi(ctx);
    ui = await startUi(ctx, { roots: 10, bigTrace: 5, env: monitorEnv(judgeServer.baseUrl) });
    await seedMonitors(ui);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
    assert.deepEqual(pageErrors, []);
  });

  test("the list shows each monitor's state, filter, sampling and scorers", async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Monitors' }).click();
    const table = page.getByRole('table', { name: 'Monitors' });
    await table.getByRole('row', { name: /^sums/ }).waitFor();
    const cells = async (name: string) =>
      (
        await table
          .getByRole('row', { name: new RegExp(`^${name}`) })
          .locator('th, td')
          .allInnerTexts()
      ).map((t) => t.trim());
    assert.deepEqual(await cells('sums'), [
      'sums',
      '● Active',
      'solve',
      '—',
      'every call',
      'sum_judge',
      'v0',
      'Deactivate',
    ]);
    assert.deepEqual(await cells('idle-monitor'), [
      'idle-monitor',
      '○ Inactive',
      'solve',
      '{"$eq":[{"$getField":"inputs.question"},{"$literal":"never"}]}',
      '50 % of calls',
      'sum_judge',
      'v0',
      'Activate',
    ]);
    // the first monitor (by name) is shown: it has scored nothing
    await page.getByRole('heading', { name: 'Scored calls of idle-monitor' }).waitFor();
    await page.getByText('No call scored yet').waitFor();
  });

  test("a monitor's scored calls: call, op, scorer, score, lag; a click opens the call", async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/monitors`);
    await page.getByRole('button', { name: 'sums', exact: true }).click();
    await page.waitForURL(/monitor=sums/);
    await page.getByRole('heading', { name: 'Scored calls of sums' }).waitFor();
    await page.getByText(/^3 scores · median lag \d/).waitFor();
    const scored = page.getByRole('table', { name: 'Scored calls' });
    await scored
      .getByRole('row', { name: new RegExp(callId(2)) })
      .getByText('solve')
      .waitFor();
    const rows = await scored.locator('tbody tr').allInnerTexts();
    assert.equal(rows.length, 3);
    for (const [i] of SUMS.entries()) {
      const row = rows.find((r) => r.includes(callId(i)));
      assert.ok(row, `call ${i} is listed`);
      assert.match(row, /solve\s+sum_judge/);
      // the judge passes a right sum and fails a wrong one (1+1=3)
      assert.match(row, i === 1 ? /"pass":false/ : /"pass":true/);
      assert.match(row, /\d+(\.\d+)? (ms|s)\s*$/, 'a lag from the call end');
    }
    await scored.getByRole('link', { name: callId(1) }).click();
    await page.waitForURL(new RegExp(`/r/call/${callId(1)}`));
    await page.getByText('1+1', { exact: false }).first().waitFor();
  });

  test('deactivate a monitor from the page: the server gets a new version with active false', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/monitors?monitor=sums`);
    await page.getByRole('button', { name: 'Deactivate sums' }).click();
    const table = page.getByRole('table', { name: 'Monitors' });
    await table.getByRole('row', { name: /^sums/ }).getByText('○ Inactive').waitFor();
    await table.getByRole('row', { name: /^sums/ }).getByRole('link', { name: 'v1' }).waitFor();
    const { obj } = await ui.post('/obj/read', { project_id: PROJECT, object_id: 'sums', digest: 'latest' });
    assert.equal(obj.version_index, 1);
    assert.equal(obj.val.active, false);
    assert.equal(obj.base_object_class, 'Monitor');
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[monitors, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test('a viewer reads monitors and scores but is offered no activation', async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(viewer, ui.url, await ui.viewerKey('vik'));
      await viewer.goto(`${ui.url}/${PROJECT}/weave/monitors?monitor=sums`);
      await viewer
        .getByRole('table', { name: 'Scored calls' })
        .getByRole('row', { name: new RegExp(callId(0)) })
        .waitFor();
      await viewer.getByText('you can read its monitors and their scores, not change them').waitFor();
      assert.equal(await viewer.getByRole('button', { name: /^(Activate|Deactivate)/ }).count(), 0);
    } finally {
      await viewer.close();
    }
  });
});
