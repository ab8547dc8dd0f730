/**
 * Browser tests of the alerts page: an alert created through the form is listed with its
 * condition and window, muted for an hour from the list, and seen firing (still muted, nothing sent) once
 * calls breach it: the server's background evaluation, waited for by the page's own refresh. Its
 * history shows the change; unmuted, its resolution is posted to a loopback webhook and the history
 * shows that delivery; a viewer reads it all with no write action offered; axe finds nothing in
 * either theme. Skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: alerts', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let hookUrl = '';
  const received: string[] = [];
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const api = async (path: string, body: unknown, method = 'POST') => {
    const r = await fetch(ui.heddleUrl + path, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json() as Promise<any>;
  };
  /** A finished call of op `flaky`, failing or not, started now. */
  const call = async (failing: boolean) => {
    const id = randomUUID();
    const now = new Date().toISOString();
    await api('/call/start', {
      start: {
        project_id: PROJECT,
        id,
        trace_id: id,
        op_name: `weave:///${PROJECT}/op/flaky:v1`,
        started_at: now,
        inputs: {},
        attributes: {},
      },
    });
    await api('/call/end', {
      end: {
        project_id: PROJECT,
        id,
        ended_at: new Date().toISOString(),
        summary: {},
        output: null,
        ...(failing ? { exception: 'RuntimeError: upstream down' } : {}),
      },
    });
  };
  const row = () => page.getByRole('table', { name: 'Alerts' }).getByRole('row').filter({ hasText: 'flaky-errors' });

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 5, bigTrace: 5 });
    const server = http.createServer((req, res) => {
      received.push(req.url ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test('the project navigation leads to an empty alerts page, axe clean in both themes', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await page.getByText('No alerts yet.').waitFor();
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[no alerts, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test('a bad threshold is refused in the form with the reason, nothing published', async () => {
    await page.getByRole('button', { name: 'New alert' }).click();
    await page.getByLabel('Name').fill('bad');
    await page.getByLabel('Threshold').fill('lots');
    await page.getByRole('button', { name: 'Create alert' }).click();
    await page.getByRole('alert').filter({ hasText: 'Threshold must be a number' }).waitFor();
    assert.deepEqual((await api(`/projects/${PROJECT}/alerts`, undefined, 'GET')).alerts, []);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  test('an alert created through the form is listed with its condition and window', async () => {
    await page.getByRole('button', { name: 'New alert' }).click();
    await page.getByLabel('Name').fill('flaky-errors');
    await page.getByLabel('Metric').selectOption('error_rate');
    await page.getByLabel('Comparison').selectOption('gt');
    await page.getByLabel('Threshold').fill('0.5');
    await page.getByLabel('Window kind').selectOption('calls');
    await page.getByLabel('Number of calls').fill('3');
    await page.getByLabel('Minimum calls').fill('3');
    await page.getByLabel('Ops').fill('flaky');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('URL 1').fill(hookUrl);
    await page.getByLabel('Format 1').selectOption('slack');
    await page.getByRole('button', { name: 'Create alert' }).click();
    await row().getByText('error rate > 0.5').waitFor();
    await row().getByText('last 3 calls').waitFor();
    await row().getByText('OK').waitFor();
    const [listed] = (await api(`/projects/${PROJECT}/alerts`, undefined, 'GET')).alerts;
    assert.deepEqual(listed.op_scope, [`weave:///${PROJECT}/op/flaky:*`]);
    assert.deepEqual(listed.spec.webhooks, [{ url: hookUrl, format: 'slack' }]);
    assert.deepEqual(listed.spec.window, { calls: 3 });
  });

  test('muted for an hour from the list, it fires on breaching calls and notifies no one', async () => {
    await row().getByRole('button', { name: 'Mute flaky-errors' }).click();
    await row().getByRole('group', { name: 'Mute flaky-errors for' }).getByRole('button', { name: '1 hour' }).click();
    await row().getByRole('button', { name: 'Unmute flaky-errors' }).waitFor();
    await row().getByText('Muted', { exact: true }).waitFor();
    await row()
      .getByText(/^until .* UTC$/)
      .waitFor();
    const [timed] = (await api(`/projects/${PROJECT}/alerts`, undefined, 'GET')).alerts;
    const hoursLeft = (Date.parse(timed.muted_until) - Date.now()) / 3600_000;
    assert.ok(hoursLeft > 0.9 && hoursLeft <= 1, `muted for an hour: ${timed.muted_until}`);
    for (let i = 0; i < 3; i += 1) await call(true);
    // the server evaluates in the background; the page refreshes itself until it shows the change
    await row().getByText('Firing').waitFor({ timeout: 30_000 });
    await row().getByText('Muted', { exact: true }).waitFor();
    await row().getByRole('link', { name: 'flaky-errors' }).click();
    const detail = page.getByRole('region', { name: 'Alert flaky-errors' });
    const history = detail.getByRole('table', { name: 'History' });
    await history.getByRole('rowheader', { name: 'Fired' }).waitFor();
    await history.getByText('none (muted or no webhook)').waitFor();
    assert.deepEqual(received, []);
    assert.deepEqual(pageErrors, []);
  });

  test('unmuted, its resolution is posted and the history shows the delivery sent', async () => {
    await row().getByRole('button', { name: 'Unmute flaky-errors' }).click();
    await row().getByRole('button', { name: 'Mute flaky-errors' }).waitFor();
    for (let i = 0; i < 3; i += 1) await call(false);
    const history = page.getByRole('region', { name: 'Alert flaky-errors' }).getByRole('table', { name: 'History' });
    const resolved = history.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Resolved' }) });
    await resolved.getByText(`sent after 1 attempt · ${hookUrl} (Slack)`).waitFor({ timeout: 30_000 });
    await row().getByText('OK').waitFor();
    assert.deepEqual(received, ['/hook']);
    // Escape closes the alert's details (and its URL)
    await page.keyboard.press('Escape');
    await page.getByRole('region', { name: 'Alert flaky-errors' }).waitFor({ state: 'detached' });
    assert.doesNotMatch(page.url(), /alert=/);
    // focus goes back to the alert's link in the list
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-alert-id') === 'flaky-errors');
  });

  test('a viewer sees the alerts and their history but no write action', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const viewer = await context.newPage();
      await signIn(viewer, ui.url, await ui.viewerKey('vera'));
      await viewer.goto(`${ui.url}/${PROJECT}/weave/alerts?alert=flaky-errors`);
      const table = viewer.getByRole('table', { name: 'Alerts' });
      await table.getByRole('row').filter({ hasText: 'flaky-errors' }).getByText('error rate > 0.5').waitFor();
      await viewer.getByRole('table', { name: 'History' }).getByRole('rowheader', { name: 'Fired' }).waitFor();
      await viewer.getByText('You are a viewer of acme').waitFor();
      for (const name of ['New alert', 'Edit flaky-errors', 'Mute flaky-errors', 'Delete flaky-errors'])
        assert.equal(await viewer.getByRole('button', { name }).count(), 0, `no ${name} button for a viewer`);
    } finally {
      await context.close();
    }
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/weave/alerts?alert=flaky-errors`);
      await page.getByRole('table', { name: 'History' }).getByRole('rowheader', { name: 'Fired' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[alert, ${colorScheme}] ${v}`);
      await row().getByRole('button', { name: 'Edit flaky-errors' }).click();
      await page.getByLabel('Number of calls').waitFor();
      for (const v of await axeViolations(page)) found.push(`[alert form, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
