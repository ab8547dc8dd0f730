/**
 * Browser tests of annotation specs in queue review (issue 33): specs of every kind made on the
 * Queues page (a number in a range, choices, free text, yes/no), a queue made from the traces view
 * with them, a reviewer filling them in (refused values named, earlier values shown and replaced),
 * all checked through the API. Skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: annotation specs in queue review', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let queueCalls: string[] = [];
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 10, bigTrace: 5 });
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

  const annotations = async (callId: string) =>
    (
      await ui.post('/feedback/query', {
        project_id: PROJECT,
        query: { $expr: { $eq: [{ $getField: 'weave_ref' }, { $literal: `weave:///${PROJECT}/call/${callId}` }] } },
      })
    ).result.filter((f: { feedback_type: string }) => f.feedback_type.startsWith('wandb.annotation.'));

  test('specs of every kind are made on the Queues page; a bad one is refused with its reason', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/queues`);
    const form = page.getByRole('form', { name: 'New annotation spec' });
    const make = async (name: string, kind: string, fill: () => Promise<void>) => {
      await page.getByRole('button', { name: 'New spec' }).click();
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Field', { exact: true }).selectOption(kind);
      await fill();
      await form.getByRole('button', { name: 'Save spec' }).click();
      await page
        .getByRole('table', { name: 'Annotation specs' })
        .getByRole('row', { name: new RegExp(`^${name}`) })
        .waitFor();
    };
    await make('helpfulness', 'number', async () => {
      await form.getByLabel('Description').fill('How much the answer helps, 1 to 5');
      await form.getByLabel('Minimum').fill('1');
      await form.getByLabel('Maximum').fill('5');
    });
    // one choice is not a choice
    await page.getByRole('button', { name: 'New spec' }).click();
    await form.getByLabel('Name').fill('tone');
    await form.getByLabel('Field', { exact: true }).selectOption('choice');
    await form.getByLabel('Choices, one per line').fill('friendly');
    await form.getByRole('button', { name: 'Save spec' }).click();
    await form.getByRole('alert').getByText('Give at least two choices').waitFor();
    await form.getByLabel('Choices, one per line').fill('friendly\nneutral\nrude');
    await form.getByRole('button', { name: 'Save spec' }).click();
    await page.getByRole('table', { name: 'Annotation specs' }).getByText('One of: friendly, neutral, rude').waitFor();
    await make('comment', 'text', () => form.getByLabel('Maximum length').fill('200'));
    await make('correct', 'boolean', async () => undefined);
    const { objs } = await ui.post('/objs/query', {
      project_id: PROJECT,
      filter: { base_object_classes: ['AnnotationSpec'], latest_only: true },
      sort_by: [{ field: 'object_id', direction: 'asc' }],
    });
    assert.deepEqual(
      objs.map((o: { object_id: string; val: { field_schema: unknown } }) => [o.object_id, o.val.field_schema]),
      [
        ['comment', { type: 'string', maxLength: 200 }],
        ['correct', { type: 'boolean' }],
        ['helpfulness', { type: 'number', minimum: 1, maximum: 5 }],
        ['tone', { type: 'string', enum: ['friendly', 'neutral', 'rude'] }],
      ],
    );
  });

  test('a queue with the specs; the reviewer fills them in, a value out of range is named', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?op=answer`);
    await page.locator('.body-row').first().waitFor();
    await page.getByRole('button', { name: 'Review these calls…' }).click();
    const dialog = page.getByRole('dialog', { name: 'New annotation queue' });
    await dialog.getByLabel('Queue name').fill('Graded answers');
    for (const spec of ['helpfulness', 'tone', 'comment', 'correct'])
      await dialog.getByRole('checkbox', { name: spec }).check();
    await dialog.getByRole('button', { name: 'Create queue' }).click();
    await page.getByText('Item 1 of').waitFor();
    const queueId = page.url().split('/queues/')[1]!.split('?')[0]!;
    const { queue } = (await fetch(`${ui.heddleUrl}/annotation_queues/${queueId}?project_id=${PROJECT}`, {
      headers: { authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}` },
    }).then((r) => r.json())) as { queue: { scorer_refs: string[] } };
    assert.equal(queue.scorer_refs.length, 4);
    const items = await ui.post(`/annotation_queues/${queueId}/items/query`, { project_id: PROJECT });
    queueCalls = (items.items as { call_id: string }[]).map((i) => i.call_id);
    assert.ok(queueCalls.length >= 2);

    const form = page.getByRole('form', { name: 'Annotations' });
    await form.getByLabel(/^helpfulness/).fill('7');
    await form.getByRole('radio', { name: 'friendly' }).check();
    await form.getByLabel(/^comment/).fill('Clear and short');
    await form.getByRole('radio', { name: 'Yes' }).check();
    await form.getByRole('button', { name: 'Save annotations' }).click();
    await form.getByRole('alert').getByText('At most 5').waitFor();
    await form.getByLabel(/^helpfulness/).fill('4');
    await form.getByRole('button', { name: 'Save annotations' }).click();
    await page.getByText('Item 2 of').waitFor();
    const saved = await annotations(queueCalls[0]!);
    assert.deepEqual(
      saved
        .map((f: { feedback_type: string; payload: { value: unknown } }) => [f.feedback_type, f.payload.value])
        .sort(),
      [
        ['wandb.annotation.comment', 'Clear and short'],
        ['wandb.annotation.correct', true],
        ['wandb.annotation.helpfulness', 4],
        ['wandb.annotation.tone', 'friendly'],
      ],
    );
    for (const f of saved) {
      assert.match(f.annotation_ref, new RegExp(`^weave:///${PROJECT}/object/${f.feedback_type.split('.').at(-1)}:`));
      assert.equal(f.queue_id, queueId);
    }
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[review with specs, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test("back on a reviewed item the reviewer's values are shown; a change replaces them", async () => {
    await page.getByRole('button', { name: /Previous/ }).click();
    await page.getByText('Item 1 of').waitFor();
    const form = page.getByRole('form', { name: 'Annotations' });
    assert.equal(await form.getByLabel(/^helpfulness/).inputValue(), '4');
    assert.equal(await form.getByRole('radio', { name: 'friendly' }).isChecked(), true);
    await form.getByLabel(/^helpfulness/).fill('5');
    await form.getByRole('radio', { name: 'neutral' }).check();
    await form.getByRole('button', { name: 'Save annotations' }).click();
    await page.getByText('Item 2 of').waitFor();
    const saved = await annotations(queueCalls[0]!);
    const byType = new Map(
      saved.map((f: { feedback_type: string; payload: { value: unknown } }) => [f.feedback_type, f.payload.value]),
    );
    assert.equal(saved.length, 4, 'replaced, not added to');
    assert.equal(byType.get('wandb.annotation.helpfulness'), 5);
    assert.equal(byType.get('wandb.annotation.tone'), 'neutral');
    await page.getByRole('button', { name: /Previous/ }).click();
    await page.getByRole('list', { name: 'Feedback' }).getByText('helpfulness: 5').waitFor();
  });
});
