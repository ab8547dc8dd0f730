/**
 * Browser tests of issue 33's dataset flows and row actions: selected calls added to a new dataset
 * and then to its next version, a dataset's rows edited, removed and added and saved as a new version
 * (a 100,000-row one through `/table/update` with only the edited row), selected calls deleted, and
 * what a viewer is not offered. Checked through the API as well as on the page; skipped like
 * pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

const BIG_ROWS = 100_000;
/** The seeded root call `n` (test/ui/seed.ts); roots 0, 5, 10, … are `answer` calls. */
const rootId = (n: number) => `0194f3a2-0000-7000-8000-${String(n + 1).padStart(12, '0')}`;

describe('web UI: datasets from calls, row editing, deleting calls', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let bigDigest: string;
  let smallDigest: string;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  const publishDataset = async (name: string, rows: Record<string, unknown>[]) => {
    const table = await ui.post('/table/create', { table: { project_id: PROJECT, rows } });
    const ds = await ui.post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: name,
        val: {
          _type: 'Dataset',
          _class_name: 'Dataset',
          _bases: ['Object', 'BaseModel'],
          name,
          rows: `weave:///${PROJECT}/table/${table.digest}`,
        },
      },
    });
    return ds.digest as string;
  };
  /** The rows of a dataset version, read through the API as a client would. */
  const datasetRows = async (name: string, digest = 'latest') => {
    const { obj } = await ui.post('/obj/read', { project_id: PROJECT, object_id: name, digest });
    const table = (obj.val.rows as string).split('/').at(-1);
    const { rows } = await ui.post('/table/query', { project_id: PROJECT, digest: table });
    return { version: obj.version_index as number, rows: (rows as { val: unknown }[]).map((r) => r.val) };
  };
  const pick = async (roots: number[]) => {
    for (const n of roots) await page.getByRole('checkbox', { name: new RegExp(rootId(n)) }).check();
    await page.getByText(`${roots.length} calls selected`).waitFor();
  };

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 30, bigTrace: 10 });
    smallDigest = await publishDataset('edit-me', [
      { question: 'Q0', expected: 'A0', score: 0 },
      { question: 'Q1', expected: 'A1', score: 1 },
      { question: 'Q2', expected: 'A2', score: 2 },
    ]);
    bigDigest = await publishDataset(
      'big-edit',
      Array.from({ length: BIG_ROWS }, (_, i) => ({ id: i, prompt: `Prompt number ${i}` })),
    );
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

  test('three selected calls become a new dataset, chosen fields as named columns; two more make its v1', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin&op=answer`);
    await page.locator('.body-row').first().waitFor();
    await pick([0, 5, 10]);
    await page.getByRole('button', { name: 'Add to dataset…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add 3 calls to a dataset' });
    const fields = dialog.getByRole('table', { name: 'Fields to columns' });
    await fields.getByText('inputs.question').waitFor();
    assert.deepEqual(
      (await fields.locator('tbody td:first-child').allInnerTexts()).map((t) => t.trim()),
      ['inputs.question', 'inputs.user_id', 'output'],
    );
    // a bad name is refused with its reason
    await dialog.getByLabel('Dataset name').fill('bad name');
    await dialog.getByRole('button', { name: 'Add 3 rows' }).click();
    await dialog.getByRole('alert').getByText('Use letters, digits').waitFor();
    await dialog.getByLabel('Dataset name').fill('picked-answers');
    await dialog.getByRole('checkbox', { name: 'inputs.user_id' }).uncheck();
    await dialog.getByLabel('Column for output').fill('expected');
    await dialog.getByRole('button', { name: 'Add 3 rows' }).click();
    await page.waitForURL(/\/weave\/objects\/picked-answers\/versions\/[0-9a-z]+/);
    await page.getByRole('heading', { name: /Dataset picked-answers/ }).waitFor();
    const grid = page.getByRole('table', { name: 'Dataset rows' });
    await grid.getByText('Question number 10', { exact: true }).waitFor();
    const v0Digest = page.url().split('/versions/')[1]!.split('?')[0]!;
    assert.deepEqual(await datasetRows('picked-answers'), {
      version: 0,
      rows: [
        { question: 'Question number 0', expected: 'Answer 0' },
        { question: 'Question number 5', expected: 'Answer 5' },
        { question: 'Question number 10', expected: 'Answer 10' },
      ],
    });

    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin&op=answer`);
    await page.locator('.body-row').first().waitFor();
    await pick([15, 20]);
    await page.getByRole('button', { name: 'Add to dataset…' }).click();
    const again = page.getByRole('dialog', { name: 'Add 2 calls to a dataset' });
    await again.getByRole('radio', { name: /existing dataset/ }).check();
    await again.getByLabel('Existing dataset', { exact: true }).selectOption('picked-answers');
    await again.getByRole('checkbox', { name: 'inputs.user_id' }).uncheck();
    await again.getByLabel('Column for output').fill('expected');
    await again.getByRole('button', { name: 'Add 2 rows' }).click();
    await page.waitForURL(/\/weave\/objects\/picked-answers\/versions\//);
    await page.getByRole('table', { name: 'Versions' }).getByText('v1 (shown)').waitFor();
    await grid.getByText('Question number 20', { exact: true }).waitFor();
    const v1 = await datasetRows('picked-answers');
    assert.equal(v1.version, 1);
    assert.deepEqual(
      v1.rows.map((r) => (r as { question: string }).question),
      [0, 5, 10, 15, 20].map((i) => `Question number ${i}`),
    );
    assert.equal((await datasetRows('picked-answers', v0Digest)).rows.length, 3, 'v0 keeps its rows');
  });

  test('edit a row, remove one and add one, then save them as the next version', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/edit-me/versions/${smallDigest}`);
    const grid = page.getByRole('table', { name: 'Dataset rows' });
    await grid.getByText('Q1', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit rows' }).click();
    await page.getByRole('button', { name: 'Edit row 1' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit row 1' });
    await editor.getByLabel('question').fill('Q1, reworded');
    // `score` holds numbers, so it takes JSON: text that is not JSON is refused
    await editor.getByLabel('score').fill('five');
    await editor.getByRole('button', { name: 'Keep row' }).click();
    await editor.getByRole('alert').getByText('score: Not valid JSON').waitFor();
    await editor.getByLabel('score').fill('5');
    await editor.getByRole('button', { name: 'Keep row' }).click();
    await grid.getByText('Q1, reworded', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove row 0' }).click();
    await page.getByRole('button', { name: 'Restore row 0' }).waitFor();
    await page.getByRole('button', { name: 'Add row' }).click();
    const adder = page.getByRole('dialog', { name: 'Add a row' });
    await adder.getByLabel('question').fill('Q3');
    await adder.getByLabel('expected').fill('A3');
    await adder.getByLabel('score').fill('3');
    await adder.getByRole('button', { name: 'Keep row' }).click();
    await grid.getByText('Q3', { exact: true }).waitFor();
    await page.getByText('Unsaved: 1 changed, 1 removed, 1 added').waitFor();

    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[dataset editing, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);

    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByRole('table', { name: 'Versions' }).getByText('v1 (shown)').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save as new version' }).count(), 0, 'editing ended');
    await grid.getByText('Q3', { exact: true }).waitFor();
    assert.deepEqual(await datasetRows('edit-me'), {
      version: 1,
      rows: [
        { question: 'Q1, reworded', expected: 'A1', score: 5 },
        { question: 'Q2', expected: 'A2', score: 2 },
        { question: 'Q3', expected: 'A3', score: 3 },
      ],
    });
    assert.equal((await datasetRows('edit-me', smallDigest)).rows.length, 3, 'v0 is unchanged');
  });

  test('row 50,000 of a 100,000-row dataset is edited by sending that row alone', async () => {
    const updates: unknown[] = [];
    const onRequest = (r: { url: () => string; postData: () => string | null }) => {
      if (r.url().endsWith('/table/update')) updates.push(JSON.parse(r.postData() ?? '{}').updates);
    };
    page.on('request', onRequest);
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/big-edit/versions/${bigDigest}`);
    await page.getByText('100,000 rows ·').waitFor();
    await page.getByRole('button', { name: 'Edit rows' }).click();
    await page.getByLabel('Dataset rows, scrollable').evaluate((el) => el.scrollTo(0, 50_000 * 34));
    await page.getByRole('button', { name: 'Edit row 50000', exact: true }).click();
    const editor = page.getByRole('dialog', { name: 'Edit row 50000' });
    await editor.getByLabel('prompt').fill('Prompt fifty thousand');
    await editor.getByRole('button', { name: 'Keep row' }).click();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByRole('table', { name: 'Versions' }).getByText('v1 (shown)').waitFor();
    page.off('request', onRequest);
    assert.deepEqual(updates, [
      [{ pop: { index: 50_000 } }, { insert: { index: 50_000, row: { id: 50_000, prompt: 'Prompt fifty thousand' } } }],
    ]);
    const { obj } = await ui.post('/obj/read', { project_id: PROJECT, object_id: 'big-edit', digest: 'latest' });
    const table = (obj.val.rows as string).split('/').at(-1);
    const stats = await ui.post('/table/query_stats', { project_id: PROJECT, digest: table });
    assert.equal(stats.count, BIG_ROWS);
    const { rows } = await ui.post('/table/query', { project_id: PROJECT, digest: table, offset: 49_999, limit: 3 });
    assert.deepEqual(
      (rows as { val: { prompt: string } }[]).map((r) => r.val.prompt),
      ['Prompt number 49999', 'Prompt fifty thousand', 'Prompt number 50001'],
    );
  });

  test('delete selected calls after a confirmation: gone from the table and from the API', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin&op=rerank`);
    await page.locator('.body-row').first().waitFor();
    await pick([2, 7]);
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 2 calls?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await ui.post('/call/read', { project_id: PROJECT, id: rootId(2) })).call?.id, rootId(2));
    await page.getByRole('button', { name: 'Delete…' }).click();
    await dialog.getByRole('button', { name: 'Delete 2 calls' }).click();
    await page.getByRole('checkbox', { name: new RegExp(rootId(7)) }).waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('checkbox', { name: new RegExp(rootId(2)) }).count(), 0);
    assert.equal(await page.getByText(/calls? selected/).count(), 0, 'the selection is cleared');
    for (const n of [2, 7])
      assert.equal((await ui.post('/call/read', { project_id: PROJECT, id: rootId(n) })).call, null);
    await page.getByRole('checkbox', { name: new RegExp(rootId(12)) }).waitFor();
  });

  test('a viewer sees rows and can compare, but is offered no editing, no adding and no deleting', async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(viewer, ui.url, await ui.viewerKey('vic'));
      await viewer.goto(`${ui.url}/${PROJECT}/weave/objects/edit-me/versions/${smallDigest}`);
      await viewer.getByRole('table', { name: 'Dataset rows' }).getByText('Q2', { exact: true }).waitFor();
      assert.equal(await viewer.getByRole('button', { name: 'Edit rows' }).count(), 0);
      await viewer.goto(`${ui.url}/${PROJECT}/weave?view=builtin&op=answer`);
      await viewer.getByRole('checkbox', { name: new RegExp(rootId(5)) }).check();
      await viewer.getByText('1 call selected').waitFor();
      await viewer.getByRole('button', { name: 'Compare', exact: true }).waitFor();
      assert.equal(await viewer.getByRole('button', { name: 'Add to dataset…' }).count(), 0);
      assert.equal(await viewer.getByRole('button', { name: 'Delete…' }).count(), 0);
    } finally {
      await viewer.close();
    }
  });
});
