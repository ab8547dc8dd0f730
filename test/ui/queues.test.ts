/**
 * Browser tests of annotation queues: a queue made from a filtered traces view, then three items
 * reviewed with the keyboard alone (thumbs up, a note, thumbs down), each judgement seen on the
 * page and as feedback through the API, with the queue's progress. Against a real in-process
 * Heddle; skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: annotation queues', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let reviewUrl = '';
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const api = async (path: string, body: unknown) => {
    const r = await fetch(ui.heddleUrl + path, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json() as Promise<Record<string, unknown>>;
  };

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

  test('a queue made from a filtered traces view holds exactly the calls it shows', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?op=classify`);
    await page.getByText('5 calls', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Review these calls…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New annotation queue' });
    await dialog.getByLabel('Queue name').fill('Classify review');
    await dialog.getByRole('button', { name: 'Create queue' }).click();
    await page.getByRole('heading', { name: 'Review: Classify review' }).waitFor();
    await page.getByRole('status').filter({ hasText: '0 of 5 reviewed' }).waitFor();
    reviewUrl = page.url().replace(/\?.*$/, '');
    await page.getByRole('article', { name: 'Call under review' }).getByText('classify').first().waitFor();
  });

  test('review three items with the keyboard only; each judgement lands as feedback', async () => {
    await page.goto(reviewUrl);
    const article = page.getByRole('article', { name: 'Call under review' });
    const status = page.getByRole('status').filter({ hasText: /reviewed/ });
    await status.filter({ hasText: '0 of 5 reviewed' }).waitFor();
    await page.getByText('Item 1 of 5').waitFor();
    await page.keyboard.press('u'); // 👍, then item 2
    await page.getByText('Item 2 of 5').waitFor();
    await page.keyboard.press('n');
    await page.keyboard.type('Label is right but the reason is missing');
    await page.keyboard.press('Enter'); // the note, then item 3
    await page.getByText('Item 3 of 5').waitFor();
    await page.keyboard.press('d'); // 👎, then item 4
    await page.getByText('Item 4 of 5').waitFor();
    await status.filter({ hasText: '3 of 5 reviewed' }).waitFor();
    await page.keyboard.press('s'); // skip item 4
    await page.getByText('Item 5 of 5').waitFor();
    await status.filter({ hasText: '4 of 5 reviewed' }).waitFor();
    // back through the judged items
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowLeft');
    await page.getByText('Item 2 of 5').waitFor();
    await article
      .getByRole('list', { name: 'Feedback' })
      .getByText('Label is right but the reason is missing')
      .waitFor();
    await page.keyboard.press('k');
    await page.getByText(/Item 1 of 5 · Reviewed/).waitFor();
    await article.getByRole('list', { name: 'Feedback' }).getByText('👍').waitFor();

    const queueId = reviewUrl.split('/').pop()!;
    const items = (await api(`/annotation_queues/${queueId}/items/query`, {
      project_id: PROJECT,
      sort_by: [{ field: 'created_at', direction: 'asc' }],
    })) as { items: { annotation_state: string; call_id: string }[] };
    assert.deepEqual(
      items.items.map((i) => i.annotation_state),
      ['completed', 'completed', 'completed', 'skipped', 'unstarted'],
    );
    const judged: unknown[] = [];
    for (const item of items.items) {
      const fb = (await api('/feedback/query', {
        project_id: PROJECT,
        query: {
          $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: `weave:///${PROJECT}/call/${item.call_id}` }] },
        },
      })) as { result: { feedback_type: string; payload: Record<string, unknown>; queue_id: string | null }[] };
      judged.push(fb.result.map((f) => [f.feedback_type, f.payload.emoji ?? f.payload.note, f.queue_id]));
    }
    assert.deepEqual(judged, [
      [['wandb.reaction.1', '👍', queueId]],
      [['wandb.note.1', 'Label is right but the reason is missing', queueId]],
      [['wandb.reaction.1', '👎', queueId]],
      [],
      [],
    ]);
    assert.deepEqual(pageErrors, []);
  });

  test('the queues page shows the queue and its progress', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/queues`);
    await page.getByRole('table', { name: 'Annotation queues' }).getByText('4 of 5 done').waitFor(); // skipped counts as done (otel-service-queues.md §D)
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/weave/queues`);
      await page.getByRole('table', { name: 'Annotation queues' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[queues, ${colorScheme}] ${v}`);
      await page.goto(`${reviewUrl}?i=1`);
      await page.getByRole('list', { name: 'Feedback' }).getByText('Label is right').waitFor();
      for (const v of await axeViolations(page)) found.push(`[review, ${colorScheme}] ${v}`);
      await page.goto(`${ui.url}/${PROJECT}/weave?op=classify`);
      await page.getByRole('button', { name: 'Review these calls…' }).click();
      await page.getByRole('dialog', { name: 'New annotation queue' }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[queue dialog, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
