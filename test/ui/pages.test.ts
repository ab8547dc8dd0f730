/**
 * Browser tests of the web app: the built web/dist against a real in-process Heddle (see
 * harness.ts), driven by Debian's Chromium through playwright-core. Skipped when Chromium or the
 * build is missing (`npm run build:web`; `apt-get install -y chromium`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { basicAuthHeader } from '../helpers/server-process.js';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason } from './harness.js';
import { HOSTILE, PROJECT } from './seed.js';

const skip = await uiSkipReason();

describe('web UI', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  const noXss = async () => {
    assert.deepEqual(dialogs, []);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  };

  test('sign-in: a wrong key is refused, the right one opens the projects list, the key is stored nowhere', async () => {
    await page.goto(ui.url + '/');
    await page.getByRole('heading', { name: 'Sign in to Heddle' }).waitFor();
    await page.getByLabel('API key').fill('wrong-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await page.getByLabel('API key').fill(ui.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByRole('link', { name: PROJECT }).waitFor();
    // the Calls column: the project's calls as /calls/query_stats counts them (below its 10,000 limit here)
    const res = await fetch(`${ui.heddleUrl}/calls/query_stats`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(ui.key), 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT }),
    });
    const { count } = (await res.json()) as { count: number };
    assert.ok(count > 1000 && count < 10_000, `seeded ${count} calls`);
    const row = page
      .getByRole('table', { name: 'Projects' })
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: PROJECT }) });
    await row.getByRole('cell', { name: count.toLocaleString('en-US'), exact: true }).waitFor();
    const stored = await page.evaluate(
      () =>
        JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href + document.cookie,
    );
    assert.ok(!stored.includes(ui.key), 'the API key must not be in storage, the URL or a script-readable cookie');
  });

  test('traces: a cold deep link with filters shows only matching rows and the count', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?status=error&op=classify`);
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
    const rows = page.getByRole('table', { name: 'Calls' }).getByRole('row');
    await page
      .getByText(/^\d+ calls$/)
      .first()
      .waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    const texts = await page.locator('.body-row').allInnerTexts();
    assert.ok(texts.length > 0);
    for (const t of texts) {
      assert.match(t, /classify/);
      assert.match(t, /Error/);
    }
    assert.ok((await rows.count()) >= 2);
    assert.equal(await page.getByLabel('Status').inputValue(), 'error');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    assert.equal(await page.getByLabel('Status').inputValue(), '');
  });

  test('traces: clicking a header sorts on the server and lands in the URL', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    await page.getByRole('button', { name: 'Latency' }).click();
    await page.waitForURL(/sort=summary\.weave\.latency_ms/);
    await page
      .getByRole('columnheader', { name: /Latency/ })
      .and(page.locator('[aria-sort="descending"]'))
      .waitFor();
    await callsSettled(page);
    const first = await page.locator('.body-row').first().innerText();
    assert.match(first, /Big batch run/, 'the longest trace comes first');
  });

  test('traces: clicking Cost orders the rows by their costs, both ways', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    // the Cost column of the rendered rows, in row order, as numbers (— for an unpriced call: null)
    const shownCosts = (): Promise<Array<number | null>> =>
      page.evaluate(() => {
        const heads = [...document.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent ?? '');
        const at = heads.findIndex((h) => h.startsWith('Cost'));
        return [...document.querySelectorAll<HTMLElement>('.body-row')]
          .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
          .map((row) => (row.querySelectorAll('[role="cell"]')[at]?.textContent ?? '').replace(/[$,]/g, ''))
          .map((text) => (/^[0-9.]+$/.test(text) ? Number(text) : null));
      });
    const header = page.getByRole('columnheader', { name: /Cost/ });
    await page.getByRole('button', { name: 'Cost' }).click();
    await page.waitForURL(/sort=summary\.weave\.total_cost/);
    await header.and(page.locator('[aria-sort="descending"]')).waitFor();
    await callsSettled(page);
    assert.match(await page.locator('.body-row').first().innerText(), /Support chat/, 'the chat call costs the most');
    for (const direction of ['desc', 'asc'] as const) {
      if (direction === 'asc') {
        await page.getByRole('button', { name: /Cost/ }).click();
        await header.and(page.locator('[aria-sort="ascending"]')).waitFor();
        await callsSettled(page);
        await page.waitForURL(/dir=asc/);
      }
      await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 10);
      const values = await shownCosts();
      const known = values.filter((v): v is number => v !== null);
      assert.ok(known.length > 10, JSON.stringify(values));
      assert.deepEqual(values.slice(0, known.length), known);
      // shown rounded: ordered, ties allowed
      const ordered = [...known].sort((a, b) => (direction === 'asc' ? a - b : b - a));
      assert.deepEqual(known, ordered, direction);
    }
  });

  test('traces: clicking Tokens orders the rows by their token totals, both ways', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    // the Tokens column of the rendered rows, in row order (— for a call without usage: null)
    const shownTokens = (): Promise<Array<number | null>> =>
      page.evaluate(() => {
        const heads = [...document.querySelectorAll('[role="columnheader"]')].map((h) => h.textContent ?? '');
        const at = heads.findIndex((h) => h.startsWith('Tokens'));
        return [...document.querySelectorAll<HTMLElement>('.body-row')]
          .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
          .map((row) => row.querySelectorAll('[role="cell"]')[at]?.textContent ?? '')
          .map((text) => (text === '—' ? null : Number(text.replaceAll(',', ''))));
      });
    const header = page.getByRole('columnheader', { name: /Tokens/ });
    await page.getByRole('button', { name: 'Tokens' }).click();
    await page.waitForURL(/sort=summary\.weave\.total_tokens&dir=desc|dir=desc&sort=summary\.weave\.total_tokens/);
    await header.and(page.locator('[aria-sort="descending"]')).waitFor();
    await callsSettled(page);
    assert.match(
      await page.locator('.body-row').first().innerText(),
      /Support chat/,
      'the chat call has the most tokens',
    );
    for (const direction of ['desc', 'asc'] as const) {
      if (direction === 'asc') {
        await page.getByRole('button', { name: /Tokens/ }).click();
        await header.and(page.locator('[aria-sort="ascending"]')).waitFor();
        await callsSettled(page);
        await page.waitForURL(/dir=asc/);
      }
      await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 10);
      const values = await shownTokens();
      const known = values.filter((v): v is number => v !== null);
      assert.ok(known.length > 10, JSON.stringify(values));
      // calls without usage come last in both directions
      assert.deepEqual(values.slice(0, known.length), known);
      const ordered = [...known].sort((a, b) => (direction === 'asc' ? a - b : b - a));
      assert.deepEqual(known, ordered, direction);
    }
    // the URL keeps the sort: a reload shows the same order
    const before = await shownTokens();
    await page.reload();
    await header.and(page.locator('[aria-sort="ascending"]')).waitFor();
    await callsSettled(page);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 10);
    assert.deepEqual((await shownTokens()).slice(0, 10), before.slice(0, 10));
  });

  test('traces: the field filter narrows through the query language', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByLabel('Field filter').fill('inputs.user_id = "user-3" and inputs.question = "Question number 10"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=/);
    await page.getByText('1 call', { exact: true }).first().waitFor();
    assert.equal(await page.locator('.body-row').count(), 1);
  });

  test('traces: the search box finds text in inputs or output, with the other filters, and clears', async () => {
    // seed.ts: root i has inputs {question: "Question number <i>"} and output "Answer <i>", id rootId(i)
    const rootId = (i: number): string => `0194f3a2-0000-7000-8000-${String(i + 1).padStart(12, '0')}`;
    const shown = async (count: number): Promise<string[]> => {
      await page
        .getByText(`${count} call${count === 1 ? '' : 's'}`, { exact: true })
        .first()
        .waitFor();
      await page.waitForFunction((n) => document.querySelectorAll('.body-row').length === n, count);
      const hrefs = await page
        .locator('.body-row a.row-link')
        .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
      return hrefs.map((href) => href.split('/').pop()!).sort();
    };
    const search = async (text: string): Promise<void> => {
      // `s` focuses the box (web/src/lib/shortcuts.ts) while focus is not in a text field
      await page.getByRole('heading', { name: 'Traces' }).click();
      await page.keyboard.press('s');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-shortcut')), 'search');
      await page.getByLabel('Search', { exact: true }).fill(text);
      await page.getByLabel('Search', { exact: true }).press('Enter');
    };
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    // in the inputs only, in another case: roots 12 and 120–129
    await search('QUESTION NUMBER 12');
    await page.waitForURL(/text=QUESTION/);
    const inInputs = [12, ...Array.from({ length: 10 }, (_, k) => 120 + k)];
    assert.deepEqual(await shown(inInputs.length), inInputs.map(rootId).sort());
    // in the output only: root 255
    await search('answer 255');
    await page.waitForURL(/text=answer/);
    assert.deepEqual(await shown(1), [rootId(255)]);
    // with the op filter (classify: i % 5 === 4) from a deep link: both apply
    await page.goto(`${ui.url}/${PROJECT}/weave?op=classify&text=question+number+12`);
    assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'question number 12');
    assert.deepEqual(await shown(2), [rootId(124), rootId(129)]);
    // cleared: every root call of the op again
    await search('');
    await page.waitForURL((url) => !url.search.includes('text='));
    const res = await fetch(`${ui.heddleUrl}/calls/query_stats`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(ui.key), 'content-type': 'application/json' },
      body: JSON.stringify({
        project_id: PROJECT,
        filter: { trace_roots_only: true, op_names: ['classify', `weave:///${PROJECT}/op/classify:*`] },
      }),
    });
    const { count } = (await res.json()) as { count: number };
    assert.ok(count > 50, `${count} classify roots`);
    await page.getByText(`${count} calls`, { exact: true }).first().waitFor();
  });

  test('traces: infinite scroll loads the next page of 200', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?all=true`);
    await page.getByText(/^200 loaded of/).waitFor();
    await page.locator('.grid-body').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.getByText(/^400 loaded of/).waitFor();
    assert.ok((await page.locator('.body-row').count()) < 120, 'rows are virtualised');
  });

  test('keyboard: from the table to a trace and back', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?status=error&op=classify`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'hidden' });
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-shortcut')), 'filter');
    await page.locator('.body-row').first().focus();
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/r\/call\//);
    await page.getByRole('tree', { name: 'Calls in this trace' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
  });

  test('trace view: chat, usage, op source, feedback with the CSRF header', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}`);
    await page
      .getByRole('list', { name: 'Inputs as a conversation' })
      .getByText('My order #123 has not arrived')
      .waitFor();
    await page
      .getByRole('list', { name: 'Output as a conversation' })
      .getByText(/ships tomorrow/)
      .waitFor();
    await page.getByText('1,540').waitFor();
    await page.getByRole('textbox', { name: 'Source of answer' }).waitFor();
    await page.getByText('Good answer, but mention the refund policy.').waitFor();
    await page.getByRole('button', { name: 'React with 🎉' }).click();
    await page.locator('.feedback-list li', { hasText: '🎉' }).waitFor();
    await page.getByLabel('Note').fill('Checked by the UI test');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.locator('.feedback-list li', { hasText: 'Checked by the UI test' }).waitFor();
    // The tree: three calls, selecting a child shows it and puts it in the URL.
    await page.getByRole('treeitem', { name: /rerank/ }).click();
    await page.waitForURL(/sel=/);
    await page.getByRole('heading', { name: 'rerank', level: 2 }).waitFor();
  });

  test('trace view: an image loads only after a click, as a blob', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.imageId}`);
    await page.getByRole('button', { name: 'Show image' }).waitFor();
    assert.equal(await page.locator('img').count(), 0);
    await page.getByRole('button', { name: 'Show image' }).click();
    const img = page.locator('.image-box img');
    await img.waitFor();
    assert.match((await img.getAttribute('src')) ?? '', /^blob:/);
    await page.waitForFunction(
      () => (document.querySelector('.image-box img') as HTMLImageElement | null)?.naturalWidth === 32,
    );
  });

  test('a 2,000-call trace renders only the visible rows', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigTraceId}`);
    await page.getByText('2,000 calls').waitFor();
    const items = await page.getByRole('treeitem').count();
    assert.ok(items > 10 && items < 150, `${items} tree rows in the DOM`);
  });

  test('a big trace opens as its root and first level, the first level collapsed', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigTraceId}`);
    await page.getByText('2,000 calls').waitFor();
    const tree = page.getByRole('tree', { name: 'Calls in this trace' });
    const root = tree.locator('[role="treeitem"][aria-level="1"]');
    assert.equal(await root.count(), 1);
    assert.match((await root.textContent()) ?? '', /Big batch run/);
    assert.equal(await root.getAttribute('aria-expanded'), 'true');
    const first = tree.locator('[role="treeitem"][aria-level="2"]');
    assert.equal(await first.count(), 19, 'the root called 19 calls');
    assert.deepEqual(
      new Set(await first.evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-expanded')))),
      new Set(['false']),
    );
    assert.equal(await tree.locator('[role="treeitem"][aria-level="3"]').count(), 0);
  });

  test('expanding a call of a big trace shows its children, still only the visible rows in the DOM', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigTraceId}`);
    await page.getByText('2,000 calls').waitFor();
    const tree = page.getByRole('tree', { name: 'Calls in this trace' });
    const agent = tree.locator('[role="treeitem"][aria-level="2"]').first();
    await agent.getByRole('button', { name: 'Expand' }).click();
    await tree.locator('[role="treeitem"][aria-level="3"]').first().waitFor();
    assert.equal(await agent.getAttribute('aria-expanded'), 'true');
    const items = await tree.getByRole('treeitem').count();
    assert.ok(items > 25 && items < 150, `${items} tree rows in the DOM for 2,000 calls`);
    // its first child by start time is call 20 (seed.ts: children of call 1 are 20, 39, 58, …)
    const child = tree.locator('[role="treeitem"][aria-level="3"]').first();
    assert.equal(await child.getAttribute('data-id'), ui.seeded.bigTraceChildId);
  });

  test('selecting a call of a big trace loads and shows its inputs', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigTraceId}`);
    await page.getByText('2,000 calls').waitFor();
    const tree = page.getByRole('tree', { name: 'Calls in this trace' });
    await tree.locator('[role="treeitem"][aria-level="2"]').first().getByRole('button', { name: 'Expand' }).click();
    const read = page.waitForRequest(
      (r) => r.url().endsWith('/call/read') && r.postData()?.includes(ui.seeded.bigTraceChildId) === true,
    );
    await tree.locator(`[role="treeitem"][data-id="${ui.seeded.bigTraceChildId}"]`).click();
    await read;
    const inputs = page.getByRole('tree', { name: 'Inputs' });
    await page.waitForFunction(() =>
      /\bi\b[^\n]*\b20\b/.test(document.querySelector('[role="tree"][aria-label="Inputs"]')?.textContent ?? ''),
    );
    assert.doesNotMatch(
      (await inputs.textContent()) ?? '',
      /items/,
      "the inputs are the selected call's, not the root's",
    );
    assert.match(page.url(), new RegExp(`sel=${ui.seeded.bigTraceChildId}`));
  });

  test('a value over 1 MB shows a preview and a download, not a tree', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.bigValueId}`);
    await page.getByRole('button', { name: 'Download JSON' }).waitFor();
    await page.getByText(/Output is 1\.\d MB of JSON/).waitFor();
  });

  test('hostile HTML in every view stays text', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.hostileId}`);
    await page.getByRole('heading', { name: HOSTILE, level: 2 }).waitFor();
    await page.locator('.exception', { hasText: HOSTILE }).waitFor();
    await page.getByRole('list', { name: 'Inputs as a conversation' }).getByText(HOSTILE).waitFor();
    assert.equal(await page.locator('.detail-pane script, .detail-pane b, .detail-pane img').count(), 0);
    await noXss();
  });

  test('threads: list and turns', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/threads`);
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    await page.getByRole('button', { name: /thread-2/ }).click();
    await page.waitForURL(/thread=thread-2/);
    await page.getByText('Thread 2, turn 3: how do I reset my password?').waitFor();
    assert.equal(await page.locator('.turn').count(), 3);
  });

  test('op and object version pages', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/ops/answer/versions/${ui.seeded.opDigest}`);
    await page.getByRole('heading', { name: /Op answer/ }).waitFor();
    await page.getByRole('textbox', { name: 'Source of answer' }).waitFor();
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-model/versions/latest`);
    await page.getByRole('heading', { name: /Object support-model/ }).waitFor();
    await page.getByText('"Be brief."').waitFor();
  });

  test('live tail: a new call appears within two seconds', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?live=true`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const id = '0194f3a2-ffff-7000-8000-000000000001';
    const r = await fetch(`${ui.heddleUrl}/call/start`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        start: {
          project_id: PROJECT,
          id,
          trace_id: id,
          op_name: 'live_probe',
          started_at: new Date().toISOString(),
          inputs: {},
          attributes: {},
        },
      }),
    });
    assert.equal(r.status, 200);
    const t0 = Date.now();
    await page.locator('.body-row', { hasText: 'live_probe' }).waitFor({ timeout: 5000 });
    assert.ok(Date.now() - t0 < 2500, `appeared after ${Date.now() - t0} ms`);
    assert.equal(await page.locator('.body-row', { hasText: 'live_probe' }).count(), 1);
    await noXss();
    assert.deepEqual(pageErrors, []);
  });

  test('accessibility: axe finds no serious or critical violation on any page, light or dark', async () => {
    const pages: [string, string, () => Promise<unknown>][] = [
      ['projects', '/', () => page.getByRole('heading', { name: 'Projects' }).waitFor()],
      [
        'traces',
        `/${PROJECT}/weave`,
        () => page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0),
      ],
      [
        'trace view',
        `/${PROJECT}/r/call/${ui.seeded.chatId}`,
        () => page.getByRole('list', { name: 'Inputs as a conversation' }).waitFor(),
      ],
      [
        'trace view (image, error)',
        `/${PROJECT}/r/call/${ui.seeded.imageId}`,
        () => page.getByRole('button', { name: 'Show image' }).waitFor(),
      ],
      [
        'threads',
        `/${PROJECT}/weave/threads?thread=thread-2`,
        () => page.getByText('Thread 2, turn 3: how do I reset my password?').waitFor(),
      ],
      [
        'object version',
        `/${PROJECT}/weave/objects/support-model/versions/latest`,
        () => page.getByText('"Be brief."').waitFor(),
      ],
      [
        'op version',
        `/${PROJECT}/weave/ops/answer/versions/${ui.seeded.opDigest}`,
        () => page.getByRole('textbox', { name: 'Source of answer' }).waitFor(),
      ],
    ];
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      // the sign-in page, in a fresh context without the session cookie
      const ctx = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 800 } });
      const signIn = await ctx.newPage();
      await signIn.goto(ui.url + '/');
      await signIn.getByRole('heading', { name: 'Sign in to Heddle' }).waitFor();
      for (const v of await axeViolations(signIn)) found.push(`[sign in, ${colorScheme}] ${v}`);
      await signIn.getByLabel('API key').fill('wrong-key');
      await signIn.getByRole('button', { name: 'Sign in' }).click();
      await signIn.getByRole('alert').waitFor();
      for (const v of await axeViolations(signIn)) found.push(`[sign in refused, ${colorScheme}] ${v}`);
      await ctx.close();
      await page.emulateMedia({ colorScheme });
      for (const [name, url, ready] of pages) {
        await page.goto(ui.url + url);
        await ready();
        for (const v of await axeViolations(page)) found.push(`[${name}, ${colorScheme}] ${v}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test('sign-out ends the session', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Heddle' }).waitFor();
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('heading', { name: 'Sign in to Heddle' }).waitFor();
  });
});

/** Waits until the calls table shows the current query's rows, not the previous query's kept while it loads. */
async function callsSettled(page: Page): Promise<void> {
  await page.locator('[role="table"][aria-label="Calls"][aria-busy="false"]').waitFor();
}
