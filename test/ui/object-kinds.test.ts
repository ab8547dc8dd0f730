/**
 * Browser tests of the pages that know what an object is: ops with their call counts (the list,
 * an op's versions, a link to exactly those calls), a model's attributes, methods and evaluations,
 * a scorer's calls, and two prompt versions compared message by message. Every count is checked
 * against the API's own answer. Against a real in-process Heddle; skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();
const ref = (kind: 'op' | 'object', name: string, digest: string) => `weave:///${PROJECT}/${kind}/${name}:${digest}`;

describe('web UI: ops, models, scorers and prompts', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let answerDigest: string;
  const cleanups: (() => unknown)[] = [];
  const api = <T>(path: string, body: unknown) => ui.post(path, body) as Promise<T>;
  const count = async (filter: unknown, query?: unknown) =>
    (await api<{ count: number }>('/calls/query_stats', { project_id: PROJECT, filter, query })).count;
  const inputIs = (field: string, value: string) => ({
    $expr: { $eq: [{ $getField: `inputs.${field}` }, { $literal: value }] },
  });
  /** The traces page's table once it holds `rows` calls (its aria-rowcount counts the header row too). */
  const callsTable = (rows: number) =>
    page.locator(`[role="table"][aria-label="Calls"][aria-rowcount="${rows + 1}"][aria-busy="false"]`);
  const publish = async (object_id: string, val: unknown) =>
    (await api<{ digest: string }>('/obj/create', { obj: { project_id: PROJECT, object_id, val } })).digest;
  const digestOf = async (name: string) =>
    (
      await api<{ obj: { digest: string } }>('/obj/read', {
        project_id: PROJECT,
        object_id: name,
        digest: 'latest',
      })
    ).obj.digest;

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 20, bigTrace: 10 });
    answerDigest = await digestOf('answer');
    await publish('rag-model', {
      _type: 'RagModel',
      _class_name: 'RagModel',
      _bases: ['Model', 'Object', 'BaseModel'],
      name: 'rag-model',
      model: 'gpt-4o-mini',
      top_k: 4,
      predict: ref('op', 'answer', answerDigest),
    });
    const prompt = (messages: unknown) => ({
      _type: 'MessagesPrompt',
      _class_name: 'MessagesPrompt',
      _bases: ['Prompt', 'Object', 'BaseModel'],
      name: 'support-prompt',
      messages,
    });
    await publish(
      'support-prompt',
      prompt([
        { role: 'system', content: 'You are terse.\nAnswer in English.' },
        { role: 'user', content: '{question}' },
        { role: 'assistant', content: 'Understood.' },
      ]),
    );
    await publish(
      'support-prompt',
      prompt([
        { role: 'system', content: 'You are terse.\nAnswer in French.' },
        { role: 'user', content: '{question}' },
      ]),
    );
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test("the ops list counts each op's calls, and the count opens exactly those calls", async () => {
    const expected = await count({ op_names: ['answer', `weave:///${PROJECT}/op/answer:*`] });
    assert.ok(expected > 0, 'the seed has calls of answer');
    await page.goto(`${ui.url}/${PROJECT}/weave/ops`);
    await page.waitForURL(/\/weave\/objects\?kind=op/);
    const table = page.getByRole('table', { name: 'Objects' });
    const row = table.getByRole('row', { name: /^answer/ });
    await row.getByRole('link', { name: `${expected} calls of answer` }).click();
    await page.waitForURL((u) => u.searchParams.get('op') === 'answer' && u.searchParams.get('all') === 'true');
    await callsTable(expected).waitFor();
  });

  test("an op version's calls: this version, every version, and per version in the table", async () => {
    const mine = await count({ op_names: [ref('op', 'answer', answerDigest)] });
    await page.goto(`${ui.url}/${PROJECT}/weave/ops/answer/versions/${answerDigest}`);
    await page.getByRole('heading', { name: 'Op answer' }).waitFor();
    const facts = page.getByRole('region', { name: 'Calls' });
    await facts
      .getByRole('link', { name: `${mine} calls` })
      .first()
      .waitFor();
    await page
      .getByRole('table', { name: 'Versions' })
      .getByRole('link', { name: `${mine} calls of v0` })
      .waitFor();
  });

  test("a model's page: its attributes, its method with its calls, and where it was used", async () => {
    const modelDigest = await digestOf('rag-model');
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/rag-model/versions/${modelDigest}`);
    await page.getByRole('heading', { name: 'Model rag-model' }).waitFor();
    const attributes = page.getByRole('table', { name: 'Attributes of rag-model' });
    assert.deepEqual(
      (await attributes.locator('tr').allInnerTexts()).map((t) => t.split('\t').map((c) => c.trim())),
      [
        ['model', 'gpt-4o-mini'],
        ['top_k', '4'],
      ],
    );
    const methods = page.getByRole('table', { name: 'Methods of rag-model' });
    const calls = await count({ op_names: [ref('op', 'answer', answerDigest)] });
    await methods.getByRole('link', { name: `${calls} calls of predict` }).waitFor();
    await methods.getByRole('link', { name: 'answer' }).click();
    await page.getByRole('heading', { name: 'Op answer' }).waitFor();
    await page.getByRole('heading', { name: 'Source' }).waitFor();
  });

  test('a model that was evaluated lists its evaluation runs and its predict calls, as the API counts them', async () => {
    const run = await api<{ call: { inputs: { model: string } } }>('/call/read', {
      project_id: PROJECT,
      id: ui.seeded.evals.small,
    });
    const modelRef = run.call.inputs.model;
    const digest = modelRef.slice(modelRef.lastIndexOf(':') + 1);
    const evaluations = await count(
      { op_names: ['Evaluation.evaluate', `weave:///${PROJECT}/op/Evaluation.evaluate:*`] },
      inputIs('model', modelRef),
    );
    assert.equal(evaluations, 1);
    const predicts = await count({}, inputIs('self', modelRef));
    assert.ok(predicts > 0);
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/model-small/versions/${digest}`);
    await page.getByRole('heading', { name: 'Model model-small' }).waitFor();
    const runs = page.getByRole('table', { name: 'Evaluations of this version' });
    await runs.getByRole('link', { name: 'qa-eval small' }).waitFor();
    assert.equal(await runs.locator('tbody tr').count(), evaluations);
    const methodCalls = page.getByRole('table', { name: 'Calls of its methods' });
    await methodCalls.locator('tbody tr').first().waitFor();
    assert.equal(await methodCalls.locator('tbody tr').count(), Math.min(predicts, 10));
    await page
      .getByRole('region', { name: 'Calls of its methods' })
      .getByRole('link', { name: 'All in Traces' })
      .click();
    await page.waitForURL((u) => (u.searchParams.get('q') ?? '').includes(modelRef));
    await callsTable(predicts).waitFor();
  });

  test("a scorer's page lists the calls that scored with it; the kind filter knows scorers", async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/scorers`);
    await page.waitForURL(/kind=scorer/);
    const table = page.getByRole('table', { name: 'Objects' });
    await table.getByRole('row', { name: /^exact_match/ }).waitFor();
    assert.deepEqual((await table.locator('tbody th').allInnerTexts()).sort(), ['exact_match', 'judge']);
    await table.getByRole('link', { name: 'exact_match' }).click();
    await page.getByRole('heading', { name: 'Scorer exact_match' }).waitFor();
    const scorerRef = ref('object', 'exact_match', await digestOf('exact_match'));
    const scored = await count({}, inputIs('self', scorerRef));
    assert.ok(scored > 0);
    await page.getByRole('region', { name: 'Calls of its methods' }).getByText(String(scored)).first().waitFor();
    const rows = page.getByRole('table', { name: 'Calls of its methods' }).locator('tbody tr');
    assert.equal(await rows.count(), Math.min(scored, 10));
    assert.match(await rows.first().innerText(), /exact_match/);
  });

  test('two prompt versions are compared message by message, the edit line by line', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/prompts`);
    await page.waitForURL(/kind=prompt/);
    await page.getByRole('table', { name: 'Objects' }).getByRole('link', { name: 'support-prompt' }).click();
    await page.getByRole('heading', { name: 'Prompt support-prompt' }).waitFor();
    await page.getByRole('link', { name: 'Changes from v0' }).click();
    const diff = page.getByRole('list', { name: 'Message changes from v0 to v1' });
    await diff.waitFor();
    const items = await diff.getByRole('listitem').allInnerTexts();
    assert.equal(items.length, 3);
    assert.match(items[0]!, /^system[\s\S]*edited[\s\S]*Answer in English[\s\S]*Answer in French/i);
    assert.match(items[1]!, /^user[\s\S]*unchanged/i);
    assert.match(items[2]!, /^assistant[\s\S]*removed[\s\S]*Understood\./i);
    await page.getByText('1 edited, 0 added, 1 removed, 1 unchanged').waitFor();
    assert.equal(await diff.locator('.diff-line-removed').first().textContent(), '- removed: Answer in English.');
  });

  test('accessibility: axe finds no serious or critical violation, light or dark', async () => {
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const [name, url, ready] of [
        [
          'op',
          `/${PROJECT}/weave/ops/answer/versions/${answerDigest}`,
          () =>
            page
              .getByRole('table', { name: 'Versions' })
              .getByRole('link', { name: /calls of v0/ })
              .waitFor(),
        ],
        [
          'model',
          `/${PROJECT}/weave/objects/model-small/versions/latest`,
          () => page.getByRole('table', { name: 'Evaluations of this version' }).waitFor(),
        ],
        [
          'prompt diff',
          `/${PROJECT}/weave/objects/support-prompt/versions/latest`,
          async () => {
            await page.getByRole('link', { name: 'Changes from v0' }).click();
            await page.getByRole('list', { name: /Message changes/ }).waitFor();
          },
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
