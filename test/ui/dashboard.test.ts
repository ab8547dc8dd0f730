/**
 * Browser test of the dashboard: calls, errors, latency percentiles, tokens and cost over a chosen
 * range from `/calls/stats`, narrowed to one op; the totals are checked against `/calls/query_stats`
 * (a different endpoint); grouped by op and status (from the URL and the selects), each group's calls
 * and errors checked the same way. Against a real in-process Heddle; skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

// the seed's calls lie on 2026-11-20 (test/ui/seed.ts)
const RANGE = 'from=2026-11-19&to=2026-11-22';

describe('web UI: dashboard', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const cleanups: (() => unknown)[] = [];
  // calls started inside RANGE (the v2 run API's calls start now, outside it)
  const inRange = [
    { $gte: [{ $getField: 'started_at' }, { $literal: '2026-11-19T00:00:00Z' }] },
    { $lt: [{ $getField: 'started_at' }, { $literal: '2026-11-22T00:00:00Z' }] },
  ];
  const count = async (filter: unknown, extra?: unknown) => {
    const query = { $expr: { $and: extra ? [...inRange, extra] : inRange } };
    const r = await fetch(ui.heddleUrl + '/calls/query_stats', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ project_id: PROJECT, filter, query }),
    });
    return ((await r.json()) as { count: number }).count;
  };
  const total = async (name: string) =>
    Number(
      (
        await page
          .getByRole('definition')
          .filter({ has: page.locator(`xpath=preceding-sibling::dt[.="${name}"]`) })
          .innerText()
      ).replace(/[^\d]/g, ''),
    );

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

  test('totals and charts for a range, then for one op; the view is in the URL', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/dashboard?${RANGE}`);
    await page.getByRole('figure', { name: 'Calls and errors' }).waitFor();
    await page.getByRole('figure', { name: 'Latency percentiles' }).locator('svg').first().waitFor();
    const all = await count({});
    assert.equal(await total('Calls'), all);
    const errors = await count({}, { $not: [{ $eq: [{ $getField: 'exception' }, { $literal: null }] }] });
    assert.equal(await total('Errors'), errors);
    assert.ok(errors > 0);

    await page.getByLabel('Op').fill('classify');
    await page.keyboard.press('Enter');
    await page.waitForURL(/op=classify/);
    const classify = await count({ op_names: [`weave:///${PROJECT}/op/classify:*`] });
    await page.waitForFunction(
      (n) => document.querySelector('.totals dd')?.textContent?.replace(/\D/g, '') === String(n),
      classify,
    );
    // the chart's data table holds the same numbers
    const fig = page.getByRole('figure', { name: 'Calls and errors' });
    await fig.getByText('Data').click();
    const cells = await fig.getByRole('table').locator('tbody tr td:nth-child(2)').allInnerTexts();
    assert.equal(
      cells.reduce((n, c) => n + Number(c.replace(/\D/g, '') || 0), 0),
      classify,
    );
    await page.getByRole('figure', { name: 'Tokens by model' }).getByText('gpt-4o-mini').first().waitFor();
  });

  test('grouped by op and status from the URL, then by status alone with the selects', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/dashboard?${RANGE}&group=op,status`);
    const table = page.getByRole('table', { name: 'Groups by op and status' });
    await table.waitFor();
    const cells = async (label: string) =>
      (
        await table
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: label, exact: true }) })
          .allInnerTexts()
      ).map((t) =>
        t
          .split('\t')
          .slice(1, 3)
          .map((c) => Number(c.replace(/\D/g, ''))),
      );
    const failed = { $not: [{ $eq: [{ $getField: 'exception' }, { $literal: null }] }] };
    const classify = { op_names: [`weave:///${PROJECT}/op/classify:*`] };
    const classifyErrors = await count(classify, failed);
    assert.ok(classifyErrors > 0, 'the seed has failed classify calls');
    // calls and errors of the classify/error group are the failed classify calls
    assert.deepEqual(await cells('classify · error'), [[classifyErrors, classifyErrors]]);
    const finished = { $not: [{ $eq: [{ $getField: 'ended_at' }, { $literal: null }] }] };
    const classifyOk = await count(classify, {
      $and: [finished, { $eq: [{ $getField: 'exception' }, { $literal: null }] }],
    });
    assert.deepEqual(await cells('classify · success'), [[classifyOk, 0]]);
    // every group together is every call in the range, as the totals say
    const all = (await table.locator('tbody tr td:nth-child(2)').allInnerTexts()).reduce(
      (n, c) => n + Number(c.replace(/\D/g, '')),
      0,
    );
    assert.equal(all, await count({}));
    assert.equal(await total('Calls'), all);
    await page.getByRole('figure', { name: 'Calls by op and status' }).locator('svg').first().waitFor();
    assert.deepEqual(await axeViolations(page), []);

    // the selects: group by status only; the URL follows
    await page.getByLabel('then by').selectOption('');
    await page.waitForURL((u) => u.searchParams.get('group') === 'op');
    await page.getByLabel('Group by').selectOption('status');
    await page.waitForURL((u) => u.searchParams.get('group') === 'status');
    const byStatus = page.getByRole('table', { name: 'Groups by status' });
    await byStatus.waitFor();
    const errors = await count({}, failed);
    assert.deepEqual(
      (
        await byStatus
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: 'error', exact: true }) })
          .allInnerTexts()
      ).map((t) =>
        t
          .split('\t')
          .slice(1, 3)
          .map((c) => Number(c.replace(/\D/g, ''))),
      ),
      [[errors, errors]],
    );
    // nothing: back to the ungrouped charts
    await page.getByLabel('Group by').selectOption('');
    await page.waitForURL((u) => !u.searchParams.has('group'));
    await page.getByRole('figure', { name: 'Calls and errors' }).waitFor();
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/weave/dashboard?${RANGE}`);
      await page.getByRole('figure', { name: 'Cost by model' }).locator('svg').first().waitFor();
      for (const v of await axeViolations(page)) found.push(`[dashboard, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
