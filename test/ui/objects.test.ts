/**
 * Browser tests of the objects pages: the list, an object's versions with a diff between two,
 * publishing an alias and a tag from the page (checked through the API), and a 100,000-row dataset
 * scrolled to row 50,000 while loading only the pages on screen. Against a real in-process Heddle;
 * skipped like pages.test.ts.
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

describe('web UI: objects and datasets', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let bigDigest: string;
  const cleanups: (() => unknown)[] = [];
  const api = async (path: string, body?: unknown) => {
    const r = await fetch(ui.heddleUrl + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json() as Promise<Record<string, unknown>>;
  };

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 20, bigTrace: 10 });
    const rows = Array.from({ length: BIG_ROWS }, (_, i) => ({ id: i, prompt: `Prompt number ${i}`, label: i % 3 }));
    const table = await api('/table/create', { table: { project_id: PROJECT, rows } });
    const ds = await api('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'big-dataset',
        val: {
          _type: 'Dataset',
          _class_name: 'Dataset',
          _bases: ['Object', 'BaseModel'],
          name: 'big-dataset',
          rows: `weave:///${PROJECT}/table/${table.digest}`,
        },
      },
    });
    bigDigest = ds.digest as string;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test('the list shows objects, datasets and ops with their versions; the kind filter is in the URL', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Objects' }).click();
    const table = page.getByRole('table', { name: 'Objects' });
    await table.getByRole('row', { name: /support-model/ }).waitFor();
    assert.match(await table.getByRole('row', { name: /support-model/ }).innerText(), /support-model\s+Object\s+—\s+2/);
    assert.match(await table.getByRole('row', { name: /^qa-questions/ }).innerText(), /Dataset\s+Dataset\s+1/);
    assert.match(await table.getByRole('row', { name: /^answer/ }).innerText(), /Op/);
    await page.getByLabel('Kind').selectOption('dataset');
    await page.waitForURL(/kind=dataset/);
    await table.getByRole('row', { name: /big-dataset/ }).waitFor();
    const names = await table.locator('tbody th').allInnerTexts();
    assert.deepEqual(names.sort(), ['big-dataset', 'qa-questions']);
  });

  test('versions and the diff between two', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-model/versions/latest`);
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByText('v1 (shown)').waitFor();
    await versions.getByRole('link', { name: 'Changes from v0' }).click();
    await page.waitForURL(/diff=/);
    const diff = page.getByRole('table', { name: 'Changes from v0 to v1' });
    await diff.waitFor();
    const lines = await diff.locator('tbody tr').allInnerTexts();
    assert.deepEqual(
      lines.map((l) => l.split('\t').map((c) => c.trim())),
      [
        ['temperature', 'changed', '0.2', '0.4'],
        ['max_tokens', 'added', '', '512'],
      ],
    );
  });

  test('publish an alias and a tag from the page; the API sees them; remove the tag again', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-model/versions/latest`);
    await page.getByLabel('New alias').fill('production');
    await page.getByRole('button', { name: 'Point alias here' }).click();
    await page.getByRole('list', { name: 'Aliases' }).getByText('production').waitFor();
    await page.getByLabel('New tag').fill('reviewed');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('list', { name: 'Tags' }).getByText('reviewed').waitFor();
    const read = (await api('/obj/read', {
      project_id: PROJECT,
      object_id: 'support-model',
      digest: 'production',
      include_tags_and_aliases: true,
    })) as { obj: { version_index: number; tags: string[]; aliases: string[] } };
    assert.equal(read.obj.version_index, 1);
    assert.deepEqual(read.obj.tags, ['reviewed']);
    assert.ok(read.obj.aliases.includes('production'));
    await page.getByRole('button', { name: 'Remove tag reviewed' }).click();
    await page.getByRole('list', { name: 'Tags' }).getByText('reviewed').waitFor({ state: 'detached' });
    const again = (await api('/obj/read', {
      project_id: PROJECT,
      object_id: 'support-model',
      digest: 'production',
      include_tags_and_aliases: true,
    })) as { obj: { tags: string[] } };
    assert.deepEqual(again.obj.tags, []);
  });

  test('a 100,000-row dataset scrolls to row 50,000 loading only the pages on screen', async () => {
    const queries: number[] = [];
    const onRequest = (r: { url: () => string; postData: () => string | null }) => {
      if (r.url().endsWith('/table/query'))
        queries.push((JSON.parse(r.postData() ?? '{}') as { offset: number }).offset);
    };
    page.on('request', onRequest);
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/big-dataset/versions/${bigDigest}`);
    await page.getByRole('heading', { name: /Dataset big-dataset/ }).waitFor();
    await page.getByText('100,000 rows ·').waitFor();
    const grid = page.getByRole('table', { name: 'Dataset rows' });
    assert.equal(await grid.getAttribute('aria-rowcount'), String(BIG_ROWS + 1));
    await grid.getByText('Prompt number 3', { exact: true }).waitFor();
    await page.getByLabel('Dataset rows, scrollable').evaluate((el) => el.scrollTo(0, 50_000 * 34));
    await grid.getByText('Prompt number 50000', { exact: true }).waitFor();
    page.off('request', onRequest);
    assert.ok(queries.length <= 4, `pages fetched: ${queries.join(', ')}`);
    assert.ok(queries.includes(50_000), `offsets ${queries.join(', ')}`);
    assert.ok((await grid.getByRole('row').count()) < 80, 'rows are virtualised');
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const [name, url, ready] of [
        ['objects', `/${PROJECT}/weave/objects`, () => page.getByRole('table', { name: 'Objects' }).waitFor()],
        [
          'object diff',
          `/${PROJECT}/weave/objects/support-model/versions/latest`,
          () => page.getByRole('table', { name: 'Versions' }).waitFor(),
        ],
        [
          'dataset',
          `/${PROJECT}/weave/objects/qa-questions/versions/${ui.seeded.evals.datasetDigest}`,
          () => page.getByText('Capital of France?').waitFor(),
        ],
      ] as const) {
        await page.goto(ui.url + url);
        await ready();
        for (const v of await axeViolations(page)) found.push(`[${name}, ${colorScheme}] ${v}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
