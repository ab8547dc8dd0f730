/**
 * Browser tests of issue 33's "Wrong today" list on the seeded project (test/ui/seed.ts): the live
 * tail shows a call finishing, feedback can be filtered (our shorthand and Weave's bracket path),
 * a chart series of one point is drawn. Against a real in-process Heddle; skipped like pages.test.ts.
 * The items that need the official clients' data are in clients.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../helpers/browser.js';
import { axeViolations } from './axe.js';
import { checkFeedbackPanel } from './feedback-panel.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI: what a Weave user does every day', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const post = async (path: string, body: unknown) => {
    const r = await fetch(ui.heddleUrl + path, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 200, await r.clone().text());
    return (await r.json()) as Record<string, unknown>;
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

  test('the live tail shows a call that started, then the same row finishing', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?live=true`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    const id = '0194f3a2-7777-7000-8000-000000000001';
    await post('/call/start', {
      start: {
        project_id: PROJECT,
        id,
        op_name: `weave:///${PROJECT}/op/answer:*`,
        trace_id: id,
        started_at: new Date().toISOString(),
        inputs: { question: 'watched while running' },
        attributes: {},
        display_name: 'Watched call',
      },
    });
    const row = page.locator('.body-row', { hasText: 'Watched call' });
    await row.getByText('Running').waitFor();
    await post('/call/end', {
      end: { project_id: PROJECT, id, ended_at: new Date().toISOString(), output: 'done', summary: {} },
    });
    await row.getByText('Success').waitFor();
    assert.equal(await page.locator('.body-row', { hasText: 'Watched call' }).count(), 1);
  });

  for (const filter of ['feedback.reaction = "👍"', 'feedback.[wandb.reaction.1].payload.emoji = "👍"'])
    test(`feedback can be filtered: ${filter}`, async () => {
      await page.goto(`${ui.url}/${PROJECT}/weave`);
      await page.getByLabel('Field filter').fill(filter);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=/);
      await page.getByText('1 call', { exact: true }).first().waitFor();
      const rows = page.locator('.body-row');
      assert.equal(await rows.count(), 1);
      assert.match(await rows.first().innerText(), /Support chat/);
    });

  test('a refused filter says why instead of counting for ever', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByLabel('Field filter').fill('feedback.nonsense = "x"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /feedback/ })
      .first()
      .waitFor();
    await page.locator('.page-head').getByText('Count unavailable').waitFor();
  });

  test('the JavaScript bundles are served precompressed, with Vary', async () => {
    const html = await (await fetch(ui.url + '/', { headers: { accept: 'text/html' } })).text();
    const main = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    assert.ok(main, html);
    const br = await fetch(ui.url + main, { headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.match(br.headers.get('vary') ?? '', /accept-encoding/i);
    const gz = await fetch(ui.url + main, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    const plain = await fetch(ui.url + main, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    const [a, b, c] = await Promise.all([br.text(), gz.text(), plain.text()]);
    assert.equal(a, c);
    assert.equal(b, c);
    assert.ok(Number(br.headers.get('content-length')) < c.length / 2, 'compressed on the wire');
  });

  test('Weave-style URLs open the matching page', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/traces?op=classify`);
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
    await page.waitForURL((u) => u.pathname === `/${PROJECT}/weave` && u.searchParams.get('op') === 'classify');
    await page.goto(`${ui.url}/${PROJECT}/weave/calls/${ui.seeded.chatId}`);
    await page.waitForURL(new RegExp(`/r/call/${ui.seeded.chatId}`));
    await page.getByRole('tree', { name: 'Calls in this trace' }).waitFor();
    await page.goto(`${ui.url}/${PROJECT}/weave/datasets`);
    await page.waitForURL(/\/weave\/objects\?kind=dataset/);
    await page.goto(`${ui.url}/${PROJECT}/weave/leaderboards`);
    await page.getByRole('heading', { name: 'Leaderboards' }).waitFor();
  });

  test('weave:/// refs in a call are links: from an evaluation to its model, then its dataset', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.evals.small}`);
    const model = page.getByRole('link', { name: /^weave:\/\/\/acme\/demo\/object\/model-small:/ }).first();
    await model.click();
    await page.waitForURL(/\/weave\/objects\/model-small\/versions\//);
    await page.getByRole('heading', { name: /Model model-small/ }).waitFor();
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/qa-eval/versions/${ui.seeded.evals.evaluationDigest}`);
    await page
      .getByRole('link', { name: /^weave:\/\/\/acme\/demo\/object\/qa-questions:/ })
      .first()
      .click();
    await page.waitForURL(/\/weave\/objects\/qa-questions\/versions\//);
  });

  test('compare: a row only one run has is marked so, not "same"', async () => {
    const { small, running } = ui.seeded.evals;
    await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${small},${running}`);
    await page.waitForFunction(() => document.querySelectorAll('.eval-row').length >= 12);
    // the running evaluation has 5 of the dataset's 12 rows (test/ui/seed-evals.ts)
    assert.equal(await page.locator('.eval-row', { hasText: 'in 1 of 2' }).count(), 7);
    assert.equal(await page.locator('.eval-row', { hasText: /same|differs/ }).count(), 5);
    assert.deepEqual(await axeViolations(page), []);
  });

  test("an op's changes are a diff of its code, not two file digests", async () => {
    const auth = `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`;
    // the seed's op (test/ui/seed.ts) with one line changed
    const code =
      'import weave\n\n@weave.op\ndef answer(question: str) -> str:\n    """Answers a question with a chat model."""\n    return client.chat(question, temperature=0)\n';
    const form = new FormData();
    form.set('project_id', PROJECT);
    form.set('file', new Blob([code]), 'obj.py');
    const up = await fetch(ui.heddleUrl + '/file/create', {
      method: 'POST',
      headers: { authorization: auth },
      body: form,
    });
    const { digest: file } = (await up.json()) as { digest: string };
    const op = await post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'answer',
        val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': file } },
      },
    });
    await page.goto(`${ui.url}/${PROJECT}/weave/ops/answer/versions/${String(op.digest)}?diff=${ui.seeded.opDigest}`);
    const diff = page.getByLabel('Code changes from v0 to v1');
    await diff.waitFor();
    await diff.locator('.diff-line-removed', { hasText: 'return client.chat(question)' }).waitFor();
    await diff.locator('.diff-line-added', { hasText: 'return client.chat(question, temperature=0)' }).waitFor();
    assert.equal(await diff.locator('.diff-line-added, .diff-line-removed').count(), 2);
    assert.deepEqual(await axeViolations(page), []);
  });

  test('feedback: author shown, a second click on a reaction takes it back, a note can be removed', async () => {
    // the seed's 👍 and note were written with this user's key
    await checkFeedbackPanel(page, post, {
      callUrl: `${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}`,
      projectId: PROJECT,
      callId: ui.seeded.chatId,
      note: 'refund policy',
    });
  });

  test('an exception shows its type, message and traceback, not one raw JSON string', async () => {
    const id = '0194f3a2-7777-7000-8000-000000000002';
    const at = new Date().toISOString();
    const exception = JSON.stringify({
      type: 'KeyError',
      message: "'user_id'",
      traceback: 'Traceback (most recent call last):\n  File "app.py", line 3, in handle\nKeyError: \'user_id\'',
    });
    await post('/call/upsert_batch', {
      batch: [
        {
          mode: 'start',
          req: {
            start: {
              project_id: PROJECT,
              id,
              trace_id: id,
              op_name: `weave:///${PROJECT}/op/handle:*`,
              started_at: at,
              inputs: {},
              attributes: {},
            },
          },
        },
        { mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: at, exception, summary: {} } } },
      ],
    });
    await page.goto(`${ui.url}/${PROJECT}/r/call/${id}`);
    await page.locator('.exception-box strong', { hasText: 'KeyError:' }).waitFor();
    assert.equal(await page.getByText('{"type":"KeyError"').count(), 0);
    await page.getByText('Traceback', { exact: true }).click();
    await page.getByText('File "app.py", line 3, in handle').waitFor();
    assert.deepEqual(await axeViolations(page), []);
  });

  test('a chart series of one point is drawn (latency of one hour)', async () => {
    // classify's calls all lie in 09:00–10:00 of the seed's day: one hourly bucket
    await page.goto(`${ui.url}/${PROJECT}/weave/dashboard?from=2026-11-20&to=2026-11-21&op=classify`);
    const figure = page.getByRole('figure', { name: 'Latency percentiles' });
    await figure.locator('svg').first().waitFor();
    await figure.locator('.recharts-line-dots circle').first().waitFor();
    assert.equal(await figure.locator('.recharts-line-dots circle').count(), 3, 'one point per percentile');
    assert.deepEqual(pageErrors, []);
  });
});
