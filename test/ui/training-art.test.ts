/**
 * Browser test of the training model page against data the official OpenPipe ART client wrote
 * (issue 18, "open a training model and read the reward of step N from the curve's data"): ART
 * 0.5.23 never calls `POST …/log` (docs/art-client.md), so the reward curve comes from what its
 * training jobs record (src/services/training/job-history.ts). test/clients/python/art_training_loop.py
 * runs two steps with the built-in trainer against an in-process Heddle; the model page's reward data
 * table then shows, for step 2, the mean reward ART computed over the train groups of that step. Skipped
 * like pages.test.ts, and without the ART venv except under CI=true (then it is installed or fails).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { BuiltinTrainer } from '../../src/training/builtin-trainer.js';
import { runArt } from '../clients/art-script.js';
import { ART_VERSION, ensureArtVenv } from '../clients/art-venv.js';
import { launch } from '../helpers/browser.js';
import { buildTestApp } from '../helpers/app.js';
import { serveUi, signIn, uiSkipReason } from './harness.js';
import { PROJECT } from './seed.js';

const ci = process.env.CI === 'true';
const skip = await uiSkipReason();
const NAME = 'art-bot';
const STEPS = 2;

/** The page shows 4 significant digits: equal to what ART computed within that. */
function near(shown: number, computed: number): void {
  assert.ok(
    Math.abs(shown - computed) <= 5e-4 * Math.max(1, Math.abs(computed)),
    `shown ${shown}, ART computed ${computed}`,
  );
}

describe('web UI: training written by the ART client', { skip, concurrency: 1 }, () => {
  const cleanups: (() => unknown)[] = [];
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  test(`the reward of step ${STEPS} from the curve's data equals ART's own (openpipe-art==${ART_VERSION})`, async (t) => {
    const venv = await ensureArtVenv();
    if (!venv.ok) {
      if (ci) assert.fail(`cannot install openpipe-art==${ART_VERSION}: ${venv.reason}`);
      t.skip(`openpipe-art==${ART_VERSION} unavailable`);
      return;
    }
    const ctx = { after: (fn: () => unknown) => void cleanups.push(fn) };
    const heddle = await buildTestApp(ctx, {}, { trainer: new BuiltinTrainer() });
    await heddle.app.listen({ port: 0, host: '127.0.0.1' });
    const heddleUrl = `http://127.0.0.1:${(heddle.app.server.address() as AddressInfo).port}`;
    const [, project] = PROJECT.split('/');
    const { result, log } = await runArt(
      venv.python,
      { url: heddleUrl, output: () => '(in process)' },
      heddle.aliceKey,
      ['train', project!, NAME, String(STEPS)],
    );
    const steps = result.steps as { step: number; train_reward: number }[];
    assert.deepEqual(
      steps.map((s) => s.step),
      [1, 2],
      log,
    );
    // one train row per step: nothing counted twice
    const history = await fetch(`${heddleUrl}/v1/preview/models/${result.model_id as string}/history?limit=100`, {
      headers: { authorization: `Bearer ${heddle.aliceKey}` },
    });
    const rows = ((await history.json()) as { data: { step: number; split: string }[] }).data;
    assert.deepEqual(
      rows.map((r) => [r.step, r.split]),
      [
        [1, 'train'],
        [2, 'train'],
      ],
    );

    const url = await serveUi(ctx, heddleUrl, [PROJECT]);
    const browser = await launch();
    cleanups.push(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, url, heddle.aliceKey);
    await page.goto(`${url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Training' }).click();
    await page.getByRole('table', { name: 'Training models' }).getByRole('link', { name: NAME }).click();
    await page.getByRole('heading', { level: 1, name: NAME }).waitFor();
    const fig = page.getByRole('figure', { name: 'reward', exact: true });
    await fig.locator('svg').first().waitFor();
    await fig.getByText('Data').click();
    const table = fig.getByRole('table', { name: 'reward data' });
    const headers = await table.locator('thead th').allInnerTexts();
    assert.deepEqual([headers[0], headers[1]], ['Step', 'train']);
    const row = table
      .locator('tbody tr')
      .filter({ has: page.getByRole('rowheader', { name: `step ${STEPS}`, exact: true }) });
    const [trainCell] = await row.locator('td').allInnerTexts();
    near(Number(trainCell), steps[STEPS - 1]!.train_reward);
  });
});
