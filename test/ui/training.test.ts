/**
 * Browser test of the Training pages: a model seeded over HTTP as the ART client drives it
 * (test/ui/seed-training.ts; jobs run by the test-only scripted trainer), then the model page: the
 * reward of a step read from the curve's data table equals what `/log` answered, every job with its
 * status and event log, the checkpoints; a step (a row of the curve's data, a point of the curve) opens
 * its rollouts on the traces page: the calls the official Python client logged inside
 * `weave.attributes({"step": N})` (test/clients/python/ui_rollouts_demo.py; that test is skipped
 * without the client's venv, except under CI=true). Against a real in-process Heddle; skipped like
 * pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPythonDemo } from '../clients/python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from '../clients/python-venv.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';
import { seedTraining, type SeededTraining } from './seed-training.js';

const ci = process.env.CI === 'true';
const ROLLOUTS_DEMO = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'clients',
  'python',
  'ui_rollouts_demo.py',
);
const skip = await uiSkipReason();

/** The page shows 4 significant digits: equal to what was logged within that. */
function near(shown: number, logged: number): void {
  assert.ok(Math.abs(shown - logged) <= 5e-4 * Math.max(1, Math.abs(logged)), `shown ${shown}, logged ${logged}`);
}

describe('web UI: training', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let trained: SeededTraining;
  const cleanups: (() => unknown)[] = [];
  const modelUrl = () => `${ui.url}/${PROJECT}/weave/training/${trained.modelId}`;

  before(async () => {
    ui = await startUi(
      { after: (fn: () => unknown) => void cleanups.push(fn) },
      { roots: 5, bigTrace: 5, trainer: new ScriptedTrainer() },
    );
    trained = await seedTraining(ui.heddleUrl, ui.key, PROJECT, 3);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test('the project lists the model; its page reads the reward of step 2 from the curve data', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Training' }).click();
    await page.getByRole('table', { name: 'Training models' }).getByRole('link', { name: trained.name }).click();
    await page.getByRole('heading', { level: 1, name: trained.name }).waitFor();
    const fig = page.getByRole('figure', { name: 'reward', exact: true });
    await fig.locator('svg').first().waitFor();
    await fig.getByText('Data').click();
    const table = fig.getByRole('table', { name: 'reward data' });
    assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['Step', 'train', 'val', 'Rollouts']);
    const row = table.locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: 'step 2', exact: true }) });
    const [trainCell, valCell] = await row.locator('td').allInnerTexts();
    const logged = trained.valReward.get(2);
    assert.ok(logged !== undefined);
    near(Number(valCell), logged);
    const train = trained.logs.find((l) => l.split === 'train' && l.step === 2)!;
    near(Number(trainCell), train.metrics['train/reward']!);
    // step 3 has a val log but no train log: the train series has a gap there, not a made-up value
    const last = table
      .locator('tbody tr')
      .filter({ has: page.getByRole('rowheader', { name: 'step 3', exact: true }) });
    const [noTrain, val3] = (await last.locator('td').allInnerTexts()).map((c) => c.trim());
    assert.equal(noTrain, '—');
    near(Number(val3), trained.valReward.get(3)!);
    // the other logged metrics get their own curves
    for (const name of ['win', 'reward_std_dev', 'exception_rate'])
      await page.getByRole('figure', { name, exact: true }).waitFor();
  });

  test('jobs with status, the event log of a job, and the checkpoints', async () => {
    await page.goto(modelUrl());
    const jobs = page.getByRole('table', { name: 'Training jobs' });
    await jobs.waitFor();
    assert.equal(await jobs.locator('tbody tr').count(), trained.jobIds.length);
    assert.equal(await jobs.getByText('Succeeded').count(), trained.jobIds.length);
    // the newest job's log is shown; another job's opens from its row and lands in the URL
    const events = page.getByRole('list', { name: 'Job events' });
    await events.getByText('training_ended').waitFor();
    await jobs
      .getByRole('link', { name: /^Events of the job/ })
      .last()
      .click();
    await page.waitForURL(new RegExp(`job=${trained.jobIds[0]}`));
    await page.getByRole('heading', { name: new RegExp(trained.jobIds[0]!) }).waitFor();
    await events.getByText('training_started').waitFor();
    const steps = await page.getByRole('table', { name: 'Checkpoints' }).locator('tbody th').allInnerTexts();
    assert.deepEqual(steps, ['3', '2', '1']);
  });

  /** The traces page opened for a step: its rollouts, roots only, and the filter it was opened with. */
  async function expectRollouts(step: number, names: string[]): Promise<void> {
    await page.waitForURL(
      (u) => u.pathname === `/${PROJECT}/weave` && u.searchParams.get('q') === `attributes.step = ${step}`,
    );
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
    assert.equal(names.length, 4);
    await page.getByText(`${names.length} calls`, { exact: true }).first().waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('.body-row').length === n, names.length);
    const shown = (await page.locator('.body-row').allInnerTexts()).map(
      (t) => /rollout step \d+ group \d #\d/.exec(t)?.[0],
    );
    assert.deepEqual(shown.sort(), [...names].sort());
    assert.equal(await page.getByLabel('Field filter').inputValue(), `attributes.step = ${step}`);
  }

  test(`a step opens its rollouts, traced by weave==${WEAVE_PY_VERSION}: from the curve's data, a point, a job`, async (t) => {
    const venv = await ensureWeaveVenv();
    if (!venv.ok) {
      if (ci) assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
      t.skip(`weave==${WEAVE_PY_VERSION} unavailable`);
      return;
    }
    const heddle = { url: ui.heddleUrl, output: () => '(in process)' };
    const { result } = await runPythonDemo(venv.python, ROLLOUTS_DEMO, heddle, ui.key, [PROJECT, trained.name, '3']);
    const rollouts = result.rollouts as Record<string, string[]>;
    await page.goto(modelUrl());
    const fig = page.getByRole('figure', { name: 'reward', exact: true });
    await fig.locator('svg').first().waitFor();
    await fig.getByText('Data').click();
    await fig.getByRole('link', { name: 'Rollouts of step 2' }).click();
    await expectRollouts(2, rollouts['2']!);

    await page.goto(modelUrl());
    await fig.locator('svg').first().waitFor();
    // hover along the curve until the tooltip names step 1, then click there
    const box = (await fig.locator('.recharts-wrapper > svg.recharts-surface').boundingBox())!;
    const label = fig.locator('.recharts-tooltip-label');
    let at: { x: number; y: number } | null = null;
    for (let f = 0.1; f < 1 && !at; f += 0.05) {
      const p = { x: box.x + box.width * f, y: box.y + box.height / 2 };
      await page.mouse.move(p.x, p.y);
      if ((await label.count()) > 0 && (await label.first().innerText()) === 'step 1') at = p;
    }
    assert.ok(at, 'no point of the curve shows step 1');
    await page.mouse.click(at.x, at.y);
    await expectRollouts(1, rollouts['1']!);

    // a job's "From step": the rollouts it trained on
    await page.goto(modelUrl());
    await page
      .getByRole('table', { name: 'Training jobs' })
      .getByRole('link', { name: 'Rollouts of step 0, which this job trained on' })
      .click();
    await expectRollouts(0, rollouts['0']!);
  });

  test('an unknown model says so', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/training/0190f1c2-7a3b-7cde-8f00-1a2b3c4d5e6f`);
    await page
      .getByRole('alert')
      .getByText(/Could not load this model/)
      .waitFor();
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/weave/training`);
      await page.getByRole('table', { name: 'Training models' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[training, ${colorScheme}] ${v}`);
      await page.goto(modelUrl());
      await page.getByRole('figure', { name: 'reward', exact: true }).locator('svg').first().waitFor();
      await page.getByRole('list', { name: 'Job events' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[training model, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
