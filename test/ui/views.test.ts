/**
 * Browser tests of issue 33's call view "Use" tab, traces columns, saved views and compare, on the
 * seeded project (test/ui/seed.ts) against a real in-process Heddle listening on a port. The Use
 * tab's code is read off the page and run as printed: the Python block with the official `weave`
 * client (the pinned venv of test/clients/python-venv.ts), the TypeScript block with plain `node`
 * and the pinned `weave` package, the cURL block with bash, each after the page's set-up lines with
 * a real key in place of the placeholder (as test/clients/readme-snippets.test.ts does for the
 * README). Skipped like pages.test.ts without Chromium or web/dist, except under CI=true.
 */
import assert from 'node:assert/strict';
import { execFile, type ExecFileException } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../helpers/browser.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { parseSetUp } from '../clients/helpers/readme-snippets.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from '../clients/python-venv.js';
import { axeViolations } from './axe.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();
const KEY_PLACEHOLDER = '<your API key>';

interface Ran {
  code: number | null;
  stdout: string;
  out: string;
}

/** Runs `file args` in `cwd` with only `env` (plus PATH), in a fresh HOME: a user's clean machine. */
function runIn(cwd: string, file: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: cwd, TMPDIR: cwd, PYTHONUNBUFFERED: '1', ...env };
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: fullEnv, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
      (error: ExecFileException | null, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, out: `exit ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr.slice(-6000)}` });
      },
    );
  });
}

describe('web UI: Use tab, columns, saved views, compare', { skip, concurrency: 1, timeout: 900_000 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 20, bigTrace: 10 });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(page, ui.url, ui.key);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-use-tab-'));
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, []);
  });

  /** The Use tab of the seeded chat call: its blocks' text and the environment its set-up gives. */
  async function useTab(): Promise<{ blocks: Record<string, string>; env: Record<string, string> }> {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}`);
    await page.getByRole('tab', { name: 'Use' }).click();
    await page.waitForURL(/tab=use/);
    const blocks: Record<string, string> = {};
    for (const id of ['setup', 'python', 'typescript', 'curl'])
      blocks[id] = (await page.locator(`pre[data-snippet="${id}"]`).textContent()) ?? '';
    const setUp = parseSetUp(blocks.setup!);
    assert.deepEqual(
      setUp.exports.map((e) => e.name),
      ['WANDB_API_KEY', 'WF_TRACE_SERVER_URL', 'WANDB_BASE_URL'],
    );
    const env = Object.fromEntries(
      setUp.exports.map((e) => [e.name, e.value === KEY_PLACEHOLDER ? ui.key : e.value]),
    ) as Record<string, string>;
    assert.equal(env.WANDB_BASE_URL, ui.url, 'the set-up names the server the page came from');
    return { blocks, env };
  }

  test('Use tab: the Python code runs as printed with the official client and prints this call', async (t) => {
    const venv = await ensureWeaveVenv();
    if (!venv.ok) {
      if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
      t.skip(`weave==${WEAVE_PY_VERSION} unavailable`);
      return;
    }
    const { blocks, env } = await useTab();
    assert.match(blocks.python!, new RegExp(`client\\.get_call\\("${ui.seeded.chatId}"\\)`));
    fs.writeFileSync(path.join(dir, 'get_call.py'), blocks.python!);
    const run = await runIn(dir, venv.python, ['get_call.py'], {
      ...env,
      WEAVE_SERVER_CACHE_DIR: path.join(dir, 'weave-cache'),
    });
    assert.equal(run.code, 0, run.out);
    assert.match(run.stdout, new RegExp(`weave:///${PROJECT}/op/answer:`), run.out);
    assert.match(run.stdout, /it ships tomorrow/, run.out);
    assert.match(run.stdout, /My order #123 has not arrived/, run.out);
  });

  test('Use tab: the TypeScript code runs with node and the cURL line reads the call', async () => {
    const { blocks, env } = await useTab();
    const fileName = /^\/\/\s*(\S+\.mjs)\s*$/m.exec(blocks.typescript!.split('\n')[0]!)?.[1];
    assert.ok(fileName, 'the TypeScript block names its file on its first line');
    fs.writeFileSync(path.join(dir, fileName), blocks.typescript!);
    if (!fs.existsSync(path.join(dir, 'node_modules')))
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const ts = await runIn(dir, process.execPath, [fileName], env);
    assert.equal(ts.code, 0, ts.out);
    assert.match(ts.stdout, new RegExp(`weave:///${PROJECT}/op/answer:`), ts.out);
    assert.match(ts.stdout, /it ships tomorrow/, ts.out);

    const curl = await runIn(dir, 'bash', ['-e', '-c', blocks.curl!], env);
    assert.equal(curl.code, 0, curl.out);
    const body = JSON.parse(curl.stdout) as { call: { id: string; display_name: string } };
    assert.equal(body.call.id, ui.seeded.chatId);
    assert.equal(body.call.display_name, 'Support chat');
  });

  const post = async (route: string, body: unknown) => {
    const r = await fetch(ui.heddleUrl + route, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 200, await r.clone().text());
    return (await r.json()) as Record<string, any>;
  };
  const headers = async () =>
    (await page.locator('.grid-head [role="columnheader"]:not(.select-cell)').allTextContents()).map((h) =>
      h.replace(/ [▲▼]$/, ''),
    );

  test('columns: two input columns and a feedback column, pinned and reordered, fetched only as needed', async () => {
    const bodies: Record<string, any>[] = [];
    const onRequest = (r: import('playwright-core').Request) => {
      if (r.url().endsWith('/calls/stream_query')) bodies.push(JSON.parse(r.postData() ?? '{}'));
    };
    page.on('request', onRequest);
    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin`);
    await page.locator('.body-row').first().waitFor();
    assert.ok(!bodies.some((b) => b.columns.includes('inputs')), 'no inputs fetched for the built-in columns');
    await page.getByRole('button', { name: /^Columns/ }).click();
    const panel = page.getByRole('region', { name: 'Columns' });
    for (const name of ['inputs.question', 'inputs.user_id', 'Reactions'])
      await panel.getByRole('button', { name: `Show ${name}`, exact: true }).click();
    await panel.getByRole('button', { name: 'Pin inputs.user_id' }).click();
    await panel.getByRole('button', { name: 'Move Reactions up' }).click();
    await panel.getByRole('button', { name: 'Hide Feedback' }).click();
    await page.getByRole('button', { name: /^Columns/ }).click();
    await page.waitForURL(/cols=/);
    const shown = await headers();
    assert.deepEqual(shown.slice(0, 1), ['inputs.user_id'], 'the pinned column comes first');
    assert.deepEqual(shown.slice(-2), ['Reactions', 'inputs.question'], 'moved up past inputs.question');
    assert.ok(!shown.includes('Feedback'));
    const chat = page.locator('.body-row', { hasText: 'Support chat' });
    await chat.getByText('👍').waitFor();
    await page.locator('.body-row', { hasText: 'Question number 19' }).getByText('user-5').waitFor();
    const last = bodies.filter((b) => b.limit === 200).at(-1)!;
    assert.ok(last.columns.includes('inputs') && !last.columns.includes('output'), JSON.stringify(last.columns));
    // an input column sorts on the server
    await page.getByRole('button', { name: 'inputs.user_id' }).click();
    await page.waitForURL(/sort=inputs.user_id/);
    await page.locator('.body-row').first().getByText('user-6').waitFor();
    page.off('request', onRequest);
  });

  test('saved views: save the view, reload, find it and load it; a default view opens the plain page', async () => {
    await page.getByRole('button', { name: 'Save view…' }).click();
    await page.getByLabel('View name').fill('Questions by user');
    await page.getByRole('button', { name: 'Save view', exact: true }).click();
    await page.waitForURL(/view=view-/);
    const id = new URL(page.url()).searchParams.get('view')!;
    // stored as a Weave SavedView, visible to the API
    const { objs } = await post('/objs/query', {
      project_id: PROJECT,
      filter: { base_object_classes: ['SavedView'], object_ids: [id], latest_only: true },
    });
    assert.equal(objs.length, 1);
    assert.equal(objs[0].val.label, 'Questions by user');
    assert.equal(objs[0].val.view_type, 'traces');
    assert.ok(
      ['inputs.question', 'inputs.user_id', 'feedback.reactions'].every((c) =>
        objs[0].val.definition.columns.some((x: { path: string[] }) => x.path.join('.') === c),
      ),
    );
    assert.deepEqual(objs[0].val.definition.pin, { left: ['inputs.user_id'], right: [] });
    assert.deepEqual(objs[0].val.definition.sort_by, [{ field: 'inputs.user_id', direction: 'desc' }]);

    // reload the plain page (no default yet): the built-in columns; the view is in the list
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.locator('.body-row').first().waitFor();
    assert.ok(!(await headers()).includes('inputs.question'));
    await page.getByRole('combobox', { name: 'Saved view' }).selectOption({ label: 'Questions by user' });
    await page.waitForURL(new RegExp(`view=${id}`));
    // sorted by user id, descending, as saved
    await page.locator('.body-row').first().getByText('user-6').waitFor();
    const loaded = await headers();
    assert.equal(loaded[0], 'inputs.user_id');
    assert.ok(loaded.includes('inputs.question') && loaded.includes('Reactions'), loaded.join(', '));
    await page.reload();
    await page.locator('.body-row').first().waitFor();
    assert.deepEqual(await headers(), loaded, 'a reload keeps the view (all of it is in the URL)');

    // save it as the project's default: the plain page opens on it
    await page.getByRole('button', { name: 'Save view…' }).click();
    await page.getByLabel('View name').fill('Team default');
    await page.getByLabel(/Make it the project's default/).check();
    await page.getByRole('button', { name: 'Save view', exact: true }).click();
    await page.waitForURL(/view=traces_default/);
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.waitForURL(/view=traces_default/);
    await page.locator('.body-row').first().waitFor();
    assert.deepEqual(await headers(), loaded);
    // the built-in view stays reachable
    await page.getByRole('combobox', { name: 'Saved view' }).selectOption({ label: 'All calls (built-in)' });
    await page.waitForURL(/view=builtin/);
    await page.getByRole('columnheader', { name: 'Feedback' }).waitFor();
    // a view can be deleted (its object is gone from the API)
    await page.getByRole('combobox', { name: 'Saved view' }).selectOption({ label: 'Questions by user' });
    await page.waitForURL(new RegExp(`view=${id}`));
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete view' }).click();
    await page.waitForURL(/view=builtin/);
    assert.equal(
      (await post('/objs/query', { project_id: PROJECT, filter: { object_ids: [id] } })).objs.length,
      0,
      'the deleted view is gone',
    );
    assert.equal(await page.getByRole('option', { name: 'Questions by user' }).count(), 0);
  });

  test('compare: select two calls, compare inputs, outputs and summaries with differences marked', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin&op=answer`);
    await page.locator('.body-row').first().waitFor();
    // roots 15 and 10 are both `answer` calls (the seed cycles five ops)
    for (const n of [15, 10]) {
      const id = `0194f3a2-0000-7000-8000-${String(n + 1).padStart(12, '0')}`;
      await page.getByRole('checkbox', { name: new RegExp(id) }).check();
    }
    await page.getByText('2 calls selected').waitFor();
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.waitForURL(/\/r\/compare\?ids=/);
    await page.getByRole('heading', { name: 'Compare 2 calls' }).waitFor();
    const inputs = page.getByRole('table', { name: 'Inputs compared' });
    await inputs.getByRole('row', { name: /^question/ }).waitFor();
    assert.equal(await inputs.locator('td.cell-diff').count(), 2, 'question and user_id differ from the baseline');
    await inputs.locator('td.cell-diff', { hasText: 'Question number 10' }).waitFor();
    const output = page.getByRole('table', { name: 'Output compared' });
    await output.locator('td.cell-diff', { hasText: 'Answer 10' }).waitFor();
    await page.getByRole('heading', { name: /^Summary/ }).waitFor();
    // the two traces op by op: the same shape
    const traces = page.getByRole('table', { name: 'Traces compared' });
    await traces.getByRole('row', { name: /^answer/ }).waitFor();
    await page.getByRole('heading', { name: /^Traces 0 of \d+ ops differ/ }).waitFor();
    // the baseline moves to the second call: now the first one is marked
    await page.getByRole('button', { name: /^Make baseline/ }).click();
    await page.waitForURL(/base=1/);
    await output.locator('td.cell-diff', { hasText: 'Answer 15' }).waitFor();
    // unchanged paths are hidden until asked for
    const summaryRows = () => page.getByRole('table', { name: 'Summary compared' }).getByRole('row').count();
    const before = await summaryRows();
    await page.getByLabel('Show unchanged paths').check();
    await page.waitForURL(/all=true/);
    assert.ok((await summaryRows()) > before);
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[compare, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test('export: the filtered view downloads as CSV and JSON Lines; its cURL and Python code write the same calls', async (t) => {
    const filter = encodeURIComponent('inputs.user_id = "user-3"');
    await page.goto(`${ui.url}/${PROJECT}/weave?view=builtin&q=${filter}`);
    await page.getByText('3 calls', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Export…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export these calls' });
    const download = async (name: string): Promise<string> => {
      const started = page.waitForEvent('download');
      await dialog.getByRole('button', { name: 'Download' }).click();
      const file = await started;
      assert.match(file.suggestedFilename(), new RegExp(`calls\\.${path.extname(name).slice(1)}$`));
      const to = path.join(dir, name);
      await file.saveAs(to);
      return fs.readFileSync(to, 'utf8');
    };
    // JSON Lines: every matching call (not only the loaded rows), each with the filtered field
    await dialog.getByLabel('JSON Lines').check();
    const rows = (await download('view.jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; inputs: { user_id: string } });
    assert.equal(rows.length, 3);
    for (const row of rows) assert.equal(row.inputs.user_id, 'user-3');
    const ids = rows.map((r) => r.id).sort();
    // CSV: a header, then the same calls
    await dialog.getByLabel('CSV').check();
    const csv = (await download('view.csv')).trim().split(/\r?\n/);
    assert.match(csv[0]!, /^id,trace_id,parent_id,op_name/);
    assert.deepEqual(
      csv
        .slice(1)
        .map((line) => line.split(',')[0])
        .sort(),
      ids,
    );

    // the code: the set-up with a real key, then the blocks as printed
    await dialog.getByText('The same from code').click();
    const block = async (id: string) => (await dialog.locator(`pre[data-snippet="${id}"]`).textContent()) ?? '';
    const setUp = parseSetUp(await block('setup'));
    const env = Object.fromEntries(
      setUp.exports.map((e) => [e.name, e.value === KEY_PLACEHOLDER ? ui.key : e.value]),
    ) as Record<string, string>;
    const curl = await runIn(dir, 'bash', ['-e', '-c', await block('curl')], env);
    assert.equal(curl.code, 0, curl.out);
    const curlFile = path.join(dir, `${PROJECT.replace('/', '-')}-calls.csv`);
    assert.deepEqual(
      fs
        .readFileSync(curlFile, 'utf8')
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
      ids,
    );

    const venv = await ensureWeaveVenv();
    if (!venv.ok) {
      if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
      t.diagnostic(`weave==${WEAVE_PY_VERSION} unavailable: the Python block was not run`);
      return;
    }
    fs.writeFileSync(path.join(dir, 'export_calls.py'), await block('python'));
    const py = await runIn(dir, venv.python, ['export_calls.py'], {
      ...env,
      WEAVE_SERVER_CACHE_DIR: path.join(dir, 'weave-cache'),
    });
    assert.equal(py.code, 0, py.out);
    assert.match(py.stdout, /wrote 3 calls to calls\.jsonl/, py.out);
    const written = fs.readFileSync(path.join(dir, 'calls.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(written.map((l) => (JSON.parse(l) as { id: string }).id).sort(), ids);
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  test('Use tab: tabs in the URL and keyboard-reachable; axe-clean Use tab, columns, views and export in both themes', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}?tab=use`);
    await page.locator('pre[data-snippet="python"]').waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Use' }).getAttribute('aria-selected'), 'true');
    await page.getByRole('tab', { name: 'Use' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('heading', { name: 'Inputs' }).waitFor();
    await page.waitForURL((u) => !u.search.includes('tab='));
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}?tab=use`);
      await page.locator('pre[data-snippet="curl"]').waitFor();
      for (const v of await axeViolations(page)) found.push(`[use tab, ${colorScheme}] ${v}`);
      await page.goto(
        `${ui.url}/${PROJECT}/weave?view=builtin&pin=%5B%22inputs.user_id%22%5D&cols=${encodeURIComponent(
          JSON.stringify([
            'inputs.user_id',
            'op_name',
            'inputs.question',
            'feedback.reactions',
            'summary.weave.status',
          ]),
        )}`,
      );
      await page.locator('.body-row').first().waitFor();
      await page.getByRole('button', { name: /^Columns/ }).click();
      await page.getByRole('button', { name: 'Show output', exact: true }).waitFor();
      for (const v of await axeViolations(page)) found.push(`[traces, columns open, ${colorScheme}] ${v}`);
      await page.getByRole('button', { name: 'Save view…' }).click();
      await page.getByLabel('View name').waitFor();
      for (const v of await axeViolations(page)) found.push(`[save view dialog, ${colorScheme}] ${v}`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Export…' }).click();
      await page.getByText('The same from code').click();
      await page.locator('dialog[open] pre[data-snippet="curl"]').waitFor();
      for (const v of await axeViolations(page)) found.push(`[export dialog, ${colorScheme}] ${v}`);
      await page.keyboard.press('Escape');
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
