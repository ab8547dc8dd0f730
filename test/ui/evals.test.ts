/**
 * Browser tests of the evaluation pages: the list of runs of every kind (declarative
 * `Evaluation.evaluate`, `EvaluationLogger`, the v2 run API, a server-side run in progress) and the
 * comparison of two runs, down to the one row where they differ and its trace. Data as the clients
 * write it (test/ui/seed-evals.ts), against a real in-process Heddle; skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: evaluations', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 20, bigTrace: 10 });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  const table = () => page.getByRole('table', { name: 'Evaluation runs' });
  const runRow = (name: string | RegExp) => table().getByRole('row').filter({ hasText: name });

  test('the list shows runs of every kind, with the progress of a running server-side one', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('link', { name: 'Evaluations' }).click();
    await page.getByRole('heading', { name: 'Evaluations' }).waitFor();
    await runRow('qa-eval small').waitFor();
    assert.match(
      await runRow('qa-eval small').innerText(),
      /qa-eval\s+model-small\s+Evaluation\s+✓\s*Success\s+exact_match 92% · judge.score 7.58/,
    );
    assert.match(await runRow('logged-qa run').innerText(), /logged-qa\s+model-logger\s+EvaluationLogger/);
    assert.match(await runRow(ui.seeded.evals.apiRun).innerText(), /qa-eval\s+model-large\s+Run API/);
    const running = runRow('eval-2026-11-20-brisk-otter');
    await running.getByText('5 / 12 rows').waitFor();
    assert.match(await running.innerText(), /Server-side/);
    assert.equal(
      await running.getByRole('progressbar', { name: 'Progress of eval-2026-11-20-brisk-otter' }).getAttribute('value'),
      '5',
    );
  });

  test('compare two runs: leaderboard, then the one row where they differ, then its trace', async () => {
    const { small, large, diffQuestion } = ui.seeded.evals;
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations`);
    const compare = page.getByRole('button', { name: /^Compare/ });
    await runRow('qa-eval small').waitFor();
    assert.equal(await compare.isDisabled(), true, 'one run is not a comparison');
    await page.getByRole('checkbox', { name: 'Select qa-eval small' }).check();
    await page.getByRole('checkbox', { name: 'Select qa-eval large' }).check();
    await page.getByRole('button', { name: 'Compare 2 runs' }).click();
    await page.waitForURL((u) => u.searchParams.get('ids') === `${small},${large}`);
    await page.getByRole('heading', { name: 'Compare 2 evaluations' }).waitFor();

    // leaderboard: ranked by the first score, the best of each column said in words
    const board = page.getByRole('table', { name: 'Leaderboard' });
    await board.getByRole('row').nth(2).waitFor();
    await board.getByText('$0.00013').first().waitFor(); // the cost query answers after the rows
    const ranked = await board.getByRole('row').allInnerTexts();
    assert.match(ranked[1]!, /^1\s+qa-eval large\s+model-large\s+100\.0% ★ best\s+8 ★ best\s+12\s+552\s+\$0\.00013/);
    assert.match(ranked[2]!, /^2\s+qa-eval small\s+model-small\s+91\.7%\s+7\.583\s+12\s+552/);

    // rows: 12, in dataset order; then the largest difference in exact_match first
    const rowsTable = page.getByRole('table', { name: 'Rows' });
    await page.getByText('12 of 12 rows loaded').waitFor();
    await page.getByLabel('Order').selectOption({ label: 'Largest difference in exact_match first' });
    await page.waitForURL((u) => u.searchParams.get('diff') === 'scores.exact_match');
    const first = rowsTable.locator('.body-row').first();
    await first.filter({ hasText: diffQuestion }).waitFor();
    assert.match(await first.innerText(), /≠ differs/);
    assert.match(
      await first.innerText(),
      /What is 7 × 8\?[\s\S]*\n54\nexact_match: ✕ false[\s\S]*\n56\nexact_match: ✓ true/,
    );
    assert.equal(await rowsTable.locator('.body-row', { hasText: '≠ differs' }).count(), 1, 'only one row differs');

    // the row's detail, and its trace
    await first.click();
    await page.waitForURL((u) => u.searchParams.has('row'));
    const detail = page.getByRole('region', { name: 'Selected row' });
    await detail.getByText('≠ the runs differ here').waitFor();
    await detail.getByRole('link', { name: 'Open trace of qa-eval small' }).click();
    await page.waitForURL(/\/r\/call\//);
    await page.getByRole('tree', { name: 'Calls in this trace' }).waitFor();
    await page.getByRole('treeitem', { name: /Evaluation\.predict_and_score/, selected: true }).waitFor();
    await page.getByRole('heading', { name: 'Evaluation.predict_and_score', level: 2 }).waitFor();

    // back: the whole view comes back from the URL
    await page.goBack();
    await page.getByRole('region', { name: 'Selected row' }).getByText('≠ the runs differ here').waitFor();
    assert.equal(await page.getByLabel('Order').inputValue(), 'scores.exact_match');
  });

  test('a running server-side evaluation shows its progress on the compare page', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${ui.seeded.evals.running}`);
    await page.getByRole('list', { name: 'Compared runs' }).getByText('5 / 12 rows').waitFor();
    await page.getByText('5 of 5 rows loaded').waitFor();
  });

  test('a link without runs says so instead of failing', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=%3Cscript%3E`);
    await page
      .getByRole('alert')
      .getByText(/No evaluation runs named in the link/)
      .waitFor();
    assert.deepEqual(pageErrors, []);
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const { small, large, diffQuestion } = ui.seeded.evals;
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/weave/evaluations`);
      await runRow('eval-2026-11-20-brisk-otter').getByText('5 / 12 rows').waitFor();
      await page.getByRole('checkbox', { name: 'Select qa-eval small' }).check();
      for (const v of await axeViolations(page)) found.push(`[evaluations, ${colorScheme}] ${v}`);
      await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${small},${large}&diff=scores.exact_match`);
      await page.locator('.body-row').first().filter({ hasText: diffQuestion }).click();
      await page.getByRole('region', { name: 'Selected row' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[compare, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
