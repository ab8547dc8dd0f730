/**
 * Browser tests of the evaluations list's filters and order (kept in the URL), the comparison's
 * charts, baseline and score filter, and the leaderboards page over Weave `Leaderboard` objects
 * (issue 33), on the seeded evaluations
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

describe('web UI: evaluation filters, comparison charts and leaderboards', { skip, concurrency: 1 }, () => {
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

  /** The data table of a chart (its "Data" disclosure), as cell texts. */
  const chartData = async (title: string) => {
    const figure = page.getByRole('figure', { name: title });
    await figure.locator('summary', { hasText: 'Data' }).click();
    const rows = await figure
      .getByRole('table', { name: `${title} data` })
      .locator('tr')
      .allInnerTexts();
    return rows.map((r) => r.split('\t').map((c) => c.trim()));
  };

  test('comparison: per-scorer bars, a score distribution, a baseline, rows filtered by score', async () => {
    const { small, large } = ui.seeded.evals;
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${small},${large}`);
    await page.getByRole('heading', { name: 'Scores by run' }).waitFor();
    assert.deepEqual(await chartData('exact_match: pass rate (%)'), [
      ['Score', 'qa-eval small', 'qa-eval large'],
      ['exact_match', '91.7%', '100%'],
    ]);
    const dist = await chartData('judge.score: distribution over 12 of 12 rows');
    assert.deepEqual(dist[0], ['judge.score', 'qa-eval small', 'qa-eval large']);
    for (const col of [1, 2])
      assert.equal(
        dist.slice(1).reduce((n, r) => n + Number(r[col]), 0),
        12,
        'each run has its 12 rows in the distribution',
      );
    // the large run measured against the small one
    await page.getByLabel('Baseline').selectOption({ label: 'qa-eval small' });
    await page.waitForURL(new RegExp(`base=${small}`));
    const board = page.getByRole('table', { name: 'Leaderboard', exact: true });
    await board.getByRole('row', { name: /qa-eval small \(baseline\)/ }).waitFor();
    const largeRow = await board.getByRole('row', { name: /^\d+ qa-eval large/ }).innerText();
    assert.match(largeRow, /100\.0%.*\+8\.3 pts/s);
    assert.match(largeRow, /\+0\.417/);
    // rows where exact_match is false in any run: the one row where the runs differ
    await page.getByLabel('Score to filter by').selectOption('exact_match');
    await page.waitForURL(/cond=fail/);
    await page.getByText('1 row match').waitFor();
    const rowsTable = page.getByRole('table', { name: 'Rows', exact: true });
    await rowsTable.getByText(ui.seeded.evals.diffQuestion).first().waitFor();
    await page.getByLabel('In run').selectOption({ label: 'qa-eval large' });
    await page.getByText('0 rows match').waitFor();
    // a numeric condition: the page's count is the server's
    await page.getByLabel('Score to filter by').selectOption('judge.score');
    await page.getByLabel('In run').selectOption('');
    await page.getByLabel('Value').fill('8');
    await page.waitForURL(/value=8/);
    const [entity, project] = PROJECT.split('/');
    const below8 = { $not: [{ $gte: [{ $getField: 'scores.judge.score' }, { $literal: 8 }] }] };
    const expected = await ui.post(`/v2/${entity}/${project}/eval_results/query`, {
      evaluation_call_ids: [small, large],
      filters: [{ evaluation_call_id: null, query: { $expr: below8 } }],
      limit: 0,
    });
    assert.ok(expected.total_rows > 0 && expected.total_rows < 12, `rows below 8: ${expected.total_rows}`);
    await page.getByText(`${expected.total_rows} row${expected.total_rows === 1 ? '' : 's'} match`).waitFor();
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[compare charts, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
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
