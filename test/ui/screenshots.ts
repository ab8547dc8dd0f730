/**
 * `npm run screenshots`: seeds a fresh in-process Heddle, opens every page of the built web app in
 * Chromium at 1440×900 and writes docs/ui/<page>.png (documentation, not pixel assertions).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.js';
import { startUi } from './harness.js';
import { PROJECT } from './seed.js';

const OUT =
  process.env.SHOT_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'ui');
const width = Number(process.env.SHOT_WIDTH ?? 1440);
const height = Number(process.env.SHOT_HEIGHT ?? 900);

const cleanups: (() => unknown)[] = [];
const ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) });
const browser = await launch();
try {
  fs.mkdirSync(OUT, { recursive: true });
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: 'light' });
  const shot = async (name: string) => {
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    console.log(`docs/ui/${name}.png`);
  };
  await page.goto(ui.url + '/');
  await page.getByLabel('API key').waitFor();
  await shot('sign-in');
  await page.getByLabel('API key').fill(ui.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: PROJECT }).waitFor();
  await shot('projects');
  await page.goto(`${ui.url}/${PROJECT}/weave`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces');
  await page.goto(`${ui.url}/${PROJECT}/weave?all=true&status=error&sort=summary.weave.latency_ms&dir=desc`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-filtered');
  await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}`);
  await page.getByRole('list', { name: 'Inputs as a conversation' }).waitFor();
  await shot('trace-chat');
  await page.locator('.detail-pane').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.getByRole('textbox', { name: 'Source of answer' }).waitFor();
  await shot('trace-feedback-source');
  await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigTraceId}`);
  await page.getByRole('tree', { name: 'Calls in this trace' }).waitFor();
  await shot('trace-large');
  await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.imageId}`);
  await page.getByRole('button', { name: 'Show image' }).click();
  await page.locator('.image-box img').waitFor();
  await shot('trace-image');
  await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.hostileId}`);
  await page.locator('.exception').waitFor();
  await shot('trace-hostile');
  await page.goto(`${ui.url}/${PROJECT}/weave/threads?thread=thread-1`);
  await page.locator('.turn').first().waitFor();
  await shot('threads');
  await page.goto(`${ui.url}/${PROJECT}/weave/ops/answer/versions/${ui.seeded.opDigest}`);
  await page.getByRole('textbox', { name: 'Source of answer' }).waitFor();
  await shot('op-version');
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-model/versions/latest`);
  await page.getByText('"Be brief."').waitFor();
  await shot('object-version');
  await page.goto(`${ui.url}/${PROJECT}/weave/objects`);
  await page.getByRole('table', { name: 'Objects' }).waitFor();
  await shot('objects');
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-model/versions/latest`);
  await page.getByRole('link', { name: 'Changes from v0' }).click();
  await page.getByRole('table', { name: 'Changes from v0 to v1' }).waitFor();
  await page.getByRole('heading', { name: 'Changes from v0 to v1' }).scrollIntoViewIfNeeded();
  await shot('object-diff');
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/qa-questions/versions/${ui.seeded.evals.datasetDigest}`);
  await page.getByText('Capital of France?').waitFor();
  await page.getByRole('heading', { name: 'Rows' }).scrollIntoViewIfNeeded();
  await shot('dataset');
  await page.goto(`${ui.url}/${PROJECT}/weave?op=classify&status=error`);
  await page.getByRole('button', { name: 'Review these calls…' }).click();
  await page.getByLabel('Queue name').fill('Failed classifications');
  await shot('queue-create');
  await page.getByRole('button', { name: 'Create queue' }).click();
  await page.getByText('Item 1 of').waitFor();
  await page.keyboard.press('u');
  await page.getByText('Item 2 of').waitFor();
  await page.keyboard.press('n');
  await page.keyboard.type('Wrong label: this is a refund request');
  await page.keyboard.press('Enter');
  await page.getByText('Item 3 of').waitFor();
  await page.keyboard.press('k');
  await page.getByRole('list', { name: 'Feedback' }).getByText('Wrong label').waitFor();
  await shot('queue-review');
  await page.goto(`${ui.url}/${PROJECT}/weave/queues`);
  await page.getByRole('table', { name: 'Annotation queues' }).waitFor();
  await shot('queues');
  const ev = ui.seeded.evals;
  await page.goto(`${ui.url}/${PROJECT}/weave/evaluations`);
  await page.getByText('5 / 12 rows').first().waitFor();
  await page.getByRole('checkbox', { name: 'Select qa-eval small' }).check();
  await page.getByRole('checkbox', { name: 'Select qa-eval large' }).check();
  await shot('evaluations');
  await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${ev.small},${ev.large}&diff=scores.exact_match`);
  await page.locator('.body-row').first().filter({ hasText: ev.diffQuestion }).click();
  await page.getByRole('region', { name: 'Selected row' }).waitFor();
  await shot('evaluation-compare');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${ui.url}/${PROJECT}/weave`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-dark');
} finally {
  await browser.close();
  for (const fn of cleanups.reverse()) await fn();
}
process.exit(0);
