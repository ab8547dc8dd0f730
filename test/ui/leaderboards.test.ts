/**
 * Browser tests of the evaluations list's filters and order (kept in the URL) and of the
 * leaderboards page over Weave `Leaderboard` objects (issue 33), on the seeded evaluations
 * (test/ui/seed-evals.ts: `qa-eval` run on model-small and model-large, an EvaluationLogger run, a
 * run-API run, a server-side run in progress). Skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: evaluation filters and leaderboards', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  /** A Leaderboard as `weave.publish(Leaderboard(...))` stores it. */
  const publishBoard = async (name: string, columns: Record<string, unknown>[], description = '') =>
    ui.post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: name,
        val: {
          _type: 'Leaderboard',
          _class_name: 'Leaderboard',
          _bases: ['Object', 'BaseModel'],
          name,
          description,
          columns: columns.map((c) => ({ _type: 'LeaderboardColumn', _class_name: 'LeaderboardColumn', ...c })),
        },
      },
    });

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 10, bigTrace: 5 });
    const evaluation = `weave:///${PROJECT}/object/qa-eval:${ui.seeded.evals.evaluationDigest}`;
    await publishBoard(
      'qa-board',
      [
        { evaluation_object_ref: evaluation, scorer_name: 'exact_match', summary_metric_path: 'true_fraction' },
        // the older client's shape: the path as parts
        { evaluation_object_ref: evaluation, scorer_name: 'judge', summary_metric_path_parts: ['score', 'mean'] },
        {
          evaluation_object_ref: evaluation,
          scorer_name: 'model_latency',
          summary_metric_path: 'mean',
          should_minimize: true,
        },
      ],
      'Exact match and the judge on the QA set',
    );
    await publishBoard('strict-judge', [
      {
        evaluation_object_ref: evaluation,
        scorer_name: 'judge',
        summary_metric_path: 'score.mean',
        should_minimize: true,
      },
    ]);
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

  const runNames = () =>
    page.getByRole('table', { name: 'Evaluation runs' }).locator('tbody tr td:nth-child(2)').allInnerTexts();

  test('the runs filter by model, kind, status and text, sort by a score, and keep it all in the URL', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations`);
    await page.getByText('5 runs', { exact: true }).waitFor();
    await page.getByLabel('Model', { exact: true }).selectOption('model-small');
    await page.waitForURL(/model=model-small/);
    await page.getByText('1 of 5 runs').waitFor();
    assert.deepEqual(await runNames(), ['qa-eval small']);
    await page.getByLabel('Model', { exact: true }).selectOption('');
    await page.getByLabel('Kind').selectOption('EvaluationLogger');
    assert.deepEqual(await runNames(), ['logged-qa run']);
    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('Status').selectOption('running');
    await page.getByText('1 of 5 runs').waitFor();
    assert.deepEqual(await runNames(), ['eval-2026-11-20-brisk-otter']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search').fill('large');
    await page.getByText('2 of 5 runs').waitFor();
    await page.getByLabel('Search').fill('');
    // by the judge's mean, best first; runs without that score go last
    await page.getByLabel('Sort by').selectOption('metric:judge.score');
    await page.waitForURL(/sort=metric%3Ajudge\.score/);
    assert.deepEqual((await runNames()).slice(0, 2), ['qa-eval large', 'qa-eval small']);
    await page.getByRole('button', { name: '↓ Descending' }).click();
    await page.waitForURL(/dir=asc/);
    assert.deepEqual((await runNames()).slice(0, 2), ['qa-eval small', 'qa-eval large']);
    // the URL alone restores the view
    const url = page.url();
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.goto(url);
    await page.getByRole('table', { name: 'Evaluation runs' }).waitFor();
    assert.deepEqual((await runNames()).slice(0, 2), ['qa-eval small', 'qa-eval large']);
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'metric:judge.score');
  });

  test('a leaderboard ranks models by each column, marks the best, and links each value to its run', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations`);
    await page.getByRole('link', { name: 'Leaderboards' }).click();
    await page.waitForURL(/\/weave\/leaderboards/);
    const board = page.getByRole('table', { name: 'Leaderboard qa-board' });
    await board.locator('tbody tr').first().waitFor();
    await page.getByText('Exact match and the judge on the QA set').waitFor();
    const rows = async () =>
      (await board.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    const table = await rows();
    assert.deepEqual(
      table.map((r) => [r[0], r[1]!.split(':')[0]]),
      [
        ['1', 'model-large'],
        ['2', 'model-small'],
      ],
    );
    // model-large: every row right, judge 8; model-small: 11 of 12, judge 7.583; the latencies tie
    assert.match(table[0]![2]!, /^1 best$/);
    assert.match(table[0]![3]!, /^8 best$/);
    assert.match(table[1]![2]!, /^0\.917$/);
    assert.match(table[1]![3]!, /^7\.583$/);
    assert.equal(table[0]![4], '0.130');
    assert.equal(table[1]![4], '0.130');
    assert.equal(await board.locator('td.best').count(), 2);
    // rank by the judge, then follow the small model's value to its run
    await board.getByRole('button', { name: /judge\.score\.mean/ }).click();
    await page.waitForURL(/by=1/);
    assert.equal(
      await board.getByRole('columnheader', { name: /judge\.score\.mean/ }).getAttribute('aria-sort'),
      'descending',
    );
    await board.locator('tbody tr').nth(1).getByRole('link', { name: '7.583' }).click();
    await page.waitForURL(new RegExp(`/weave/evaluations/compare\\?ids=${ui.seeded.evals.small}`));
  });

  test('a column where lower is better ranks the other way; the board is chosen by name', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/leaderboards`);
    await page.getByLabel('Leaderboard', { exact: true }).selectOption('strict-judge');
    await page.waitForURL(/board=strict-judge/);
    const board = page.getByRole('table', { name: 'Leaderboard strict-judge' });
    await board.getByText('(lower is better)').waitFor();
    const models = await board.locator('tbody th').allInnerTexts();
    assert.deepEqual(
      models.map((m) => m.split(':')[0]),
      ['model-small', 'model-large'],
    );
    await board.locator('td.best', { hasText: '7.583' }).waitFor();
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[leaderboard, ${colorScheme}] ${v}`);
      await page.goto(`${ui.url}/${PROJECT}/weave/evaluations?model=model-large`);
      await page.getByRole('table', { name: 'Evaluation runs' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[evaluations filtered, ${colorScheme}] ${v}`);
      await page.goto(`${ui.url}/${PROJECT}/weave/leaderboards?board=strict-judge`);
      await board.waitFor();
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
