/**
 * Issue 33's everyday flows over data the official Python client wrote (test/clients/python/
 * ui_flows_demo.py) to a real Heddle process: filter by the reaction it added, build and save a
 * view with two input columns and a feedback column, compare two of its calls, add three of them to
 * a dataset and read that dataset back with the client, edit a row of the dataset it published and
 * read the new version back with the client, export the filtered view, open its chat call in the
 * playground and run two variants through `heddle/` models (the built-in trainer, in process), save
 * the prompt and read it back with the client, open its weave.Model's page and diff its two
 * MessagesPrompt versions, and see the calls its weave.Monitor scored (monitor_demo.py, judged by a
 * loopback provider). Needs what test/ui/clients.test.ts needs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from '../clients/python-script.js';
import { providerEnv, startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { clientUiSkipReason, openSignedIn, PY_SCRIPTS, startClientServer } from './client-session.js';

const PROJECT = 'acme/flows';
const PY_FLOWS = path.join(PY_SCRIPTS, 'ui_flows_demo.py');
const PY_READ_OBJECT = path.join(PY_SCRIPTS, 'read_object.py');
const PY_MONITOR = path.join(PY_SCRIPTS, 'monitor_demo.py');
/** Where monitor_demo.py runs its weave.Monitor (apart, so the flows project holds only the flows' data). */
const MONITOR_PROJECT = 'acme/flowmon';

const skip = await clientUiSkipReason();

describe(
  'web UI: the everyday flows on data the Python client wrote',
  { skip, concurrency: 1, timeout: 600_000 },
  () => {
    let server: ServerProcess;
    let key: string;
    let python: string;
    let ui: string;
    let page: Page;
    /** The four `classify` calls, in the order the script made them. */
    let ids: string[];
    /** The chat completion call. */
    let chatId: string;
    let datasetDigest: string;
    /** The model's name: the client saved it as its class name at its first call, and publish kept that ref. */
    let modelName: string;
    let pageErrors: string[] = [];
    const cleanups: (() => unknown)[] = [];
    const t = { after: (fn: () => unknown) => void cleanups.push(fn) };

    /** An object's latest version as the Python client reads it (`weave.ref(name).get()`: rows or messages). */
    const readObject = async (name: string) =>
      (await runPythonDemo(python, PY_READ_OBJECT, server, key, [PROJECT, name])).result as {
        digest: string;
        class: string;
        rows?: Record<string, unknown>[];
        messages?: { role: string; content: string }[];
      };
    const headers = async () =>
      (await page.locator('.grid-head [role="columnheader"]:not(.select-cell)').allTextContents()).map((h) =>
        h.replace(/ [▲▼]$/, ''),
      );
    const pick = async (which: number[]) => {
      for (const i of which) await page.getByRole('checkbox', { name: new RegExp(ids[i]!) }).check();
      await page.getByText(`${which.length} calls selected`).waitFor();
    };
    const tracesOf = async (search: string) => {
      await page.goto(`${ui}/${PROJECT}/weave?view=builtin&${search}`);
      await page.locator('.body-row').first().waitFor();
    };

    before(async () => {
      // the judge an LLMAsAJudgeScorer calls, on loopback (monitor_demo.py)
      const judge = await startFakeOpenAi(t);
      ({ server, key, python } = await startClientServer(t, {
        ...providerEnv(judge.baseUrl),
        HEDDLE_PROVIDER_TIMEOUT_MS: '10000',
        HEDDLE_MONITOR_POLL_MS: '50',
      }));
      const flows = await runPythonDemo(python, PY_FLOWS, server, key, [PROJECT]);
      ids = flows.result.classify as string[];
      chatId = flows.result.chat as string;
      datasetDigest = flows.result.dataset_digest as string;
      modelName = (flows.result.model_uri as string).split('/object/')[1]!.split(':')[0]!;
      assert.equal(ids.length, 4);
      ({ ui, page, pageErrors } = await openSignedIn(t, server, key, PROJECT));
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      assert.deepEqual(pageErrors, []);
    });

    test('filter by feedback: the call the client reacted to, alone', async () => {
      await tracesOf('op=classify');
      await page.getByLabel('Field filter').fill('feedback.reaction = "👍"');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/q=/);
      await page.getByText('1 call', { exact: true }).first().waitFor();
      assert.equal(await page.locator('.body-row').count(), 1);
      await page.getByRole('checkbox', { name: new RegExp(ids[0]!) }).waitFor();
    });

    test('a view with two input columns and a feedback column is saved, and found again after a reload', async () => {
      await tracesOf('op=classify');
      await page.getByRole('button', { name: /^Columns/ }).click();
      const panel = page.getByRole('region', { name: 'Columns' });
      for (const name of ['inputs.ticket', 'inputs.customer_id', 'Reactions'])
        await panel.getByRole('button', { name: `Show ${name}`, exact: true }).click();
      await page.getByRole('button', { name: /^Columns/ }).click();
      await page.locator('.body-row', { hasText: 'cust-3' }).getByText('Refund please, the kettle broke').waitFor();
      await page.locator('.body-row', { hasText: 'cust-1' }).getByText('👍').first().waitFor();
      await page.getByRole('button', { name: 'Save view…' }).click();
      await page.getByLabel('View name').fill('Tickets');
      await page.getByRole('button', { name: 'Save view', exact: true }).click();
      await page.waitForURL(/view=view-/);
      const saved = await headers();
      await page.goto(`${ui}/${PROJECT}/weave`);
      await page.locator('.body-row').first().waitFor();
      await page.getByRole('combobox', { name: 'Saved view' }).selectOption({ label: 'Tickets' });
      await page.locator('.body-row', { hasText: 'cust-4' }).waitFor();
      assert.deepEqual(await headers(), saved);
      for (const column of ['inputs.ticket', 'inputs.customer_id', 'Reactions'])
        assert.ok(saved.includes(column), column);
    });

    test('two of its calls compared: the inputs and the output that differ are marked', async () => {
      await tracesOf('op=classify');
      await pick([1, 2]);
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      await page.getByRole('heading', { name: 'Compare 2 calls' }).waitFor();
      const inputs = page.getByRole('table', { name: 'Inputs compared' });
      await inputs.locator('td.cell-diff', { hasText: 'Refund please, the kettle broke' }).waitFor();
      await inputs.locator('td.cell-diff', { hasText: 'cust-3' }).waitFor();
      await page
        .getByRole('table', { name: 'Output compared' })
        .locator('td.cell-diff', { hasText: 'refund' })
        .waitFor();
    });

    test('three calls added to a new dataset, which the Python client then reads', async () => {
      await tracesOf('op=classify');
      await pick([0, 1, 3]);
      await page.getByRole('button', { name: 'Add to dataset…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add 3 calls to a dataset' });
      await dialog.getByRole('table', { name: 'Fields to columns' }).getByText('inputs.ticket').waitFor();
      await dialog.getByLabel('Dataset name').fill('triaged');
      await dialog.getByRole('checkbox', { name: 'inputs.customer_id' }).uncheck();
      await dialog.getByRole('checkbox', { name: 'output.confidence' }).uncheck();
      await dialog.getByRole('button', { name: 'Add 3 rows' }).click();
      await page.waitForURL(/\/weave\/objects\/triaged\/versions\//);
      await page.getByRole('table', { name: 'Dataset rows' }).getByText('Where is my parcel?').waitFor();
      const read = await readObject('triaged');
      assert.deepEqual(read.rows!.map((r) => `${r.ticket}: ${r.label}`).sort(), [
        'How do I change my address?: question',
        'I want a refund for order 7: refund',
        'Where is my parcel?: question',
      ]);
      assert.ok(page.url().includes(read.digest), 'the page opened the version the client reads');
    });

    test("a row of the client's dataset is edited; the client reads the new version", async () => {
      await page.goto(`${ui}/${PROJECT}/weave/objects/tickets/versions/${datasetDigest}`);
      const grid = page.getByRole('table', { name: 'Dataset rows' });
      await grid.getByText('Where is my parcel?').waitFor();
      await page.getByRole('button', { name: 'Edit rows' }).click();
      await page.getByRole('button', { name: 'Edit row 1' }).click();
      const editor = page.getByRole('dialog', { name: 'Edit row 1' });
      await editor.getByLabel('label').fill('shipping');
      await editor.getByRole('button', { name: 'Keep row' }).click();
      await page.getByRole('button', { name: 'Save as new version' }).click();
      await page.getByRole('table', { name: 'Versions' }).getByText('v1 (shown)').waitFor();
      const read = await readObject('tickets');
      assert.notEqual(read.digest, datasetDigest);
      assert.deepEqual(
        read.rows!.map((r) => r.label),
        ['refund', 'shipping', 'question'],
      );
    });

    test('the filtered view exported as JSON Lines holds exactly the calls shown', async () => {
      await tracesOf(`op=classify&q=${encodeURIComponent('output.label = "refund"')}`);
      await page.getByText('2 calls', { exact: true }).first().waitFor();
      await page.getByRole('button', { name: 'Export…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export these calls' });
      await dialog.getByLabel('JSON Lines').check();
      const started = page.waitForEvent('download');
      await dialog.getByRole('button', { name: 'Download' }).click();
      const file = await started;
      const to = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-flows-')), 'calls.jsonl');
      cleanups.push(() => fs.rmSync(path.dirname(to), { recursive: true, force: true }));
      await file.saveAs(to);
      const rows = fs
        .readFileSync(to, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; output: { label: string } });
      assert.deepEqual(rows.map((r) => r.id).sort(), [ids[0], ids[2]].sort());
      assert.ok(rows.every((r) => r.output.label === 'refund'));
    });

    test('its chat call in the playground: two variants through heddle/ models, the prompt saved and read by the client', async () => {
      // two models of the project on the built-in trainer: real models, nothing leaves the process
      for (const name of ['bot', 'bot-b']) {
        const made = await fetch(`${server.url}/v1/preview/models`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ project: PROJECT.split('/')[1], name, base_model: 'heddle/byte-decoder' }),
        });
        assert.equal(made.status, 200, await made.text());
      }
      await page.goto(`${ui}/${PROJECT}/r/call/${chatId}`);
      await page.getByRole('link', { name: 'Open in playground' }).click();
      await page.getByText('Started from').waitFor();
      assert.equal(await page.getByLabel('Model of variant 1', { exact: true }).inputValue(), 'gpt-4o-mini');
      await page.getByLabel('Model of variant 1', { exact: true }).fill('heddle/bot');
      await page.getByLabel('Message 2 of variant 1', { exact: true }).fill('How long do refunds to a card take?');
      await page.getByRole('button', { name: 'Duplicate' }).first().click();
      await page.getByLabel('Model of variant 2', { exact: true }).fill('heddle/bot-b');
      await page.getByRole('button', { name: 'Run all' }).click();
      for (const n of [1, 2])
        await page
          .getByRole('region', { name: `Answer of variant ${n}` })
          .getByText(/\d+ prompt tokens · \d+ completion tokens/)
          .waitFor({ timeout: 120_000 });
      await page.getByLabel('Prompt name for variant 1', { exact: true }).fill('refund-prompt');
      await page.getByRole('button', { name: 'Save prompt' }).first().click();
      await page
        .getByRole('status')
        .getByRole('link', { name: /^refund-prompt:/ })
        .waitFor();
      const read = await readObject('refund-prompt');
      assert.equal(read.class, 'MessagesPrompt');
      assert.deepEqual(read.messages, [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'How long do refunds to a card take?' },
      ]);
    });

    test("the weave.Model's page: its attributes, its predict method and the calls it made", async () => {
      await page.goto(`${ui}/${PROJECT}/weave/models`);
      await page.waitForURL(/kind=model/);
      await page.getByRole('table', { name: 'Objects' }).getByRole('link', { name: modelName }).click();
      await page.getByRole('heading', { name: `Model ${modelName}` }).waitFor();
      const attributes = page.getByRole('table', { name: `Attributes of ${modelName}` });
      assert.deepEqual(
        (await attributes.locator('tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim())),
        [
          ['model_name', 'keyword-v1'],
          ['threshold', '0.5'],
        ],
      );
      await page
        .getByRole('table', { name: `Methods of ${modelName}` })
        .getByRole('link', { name: '2 calls of predict' })
        .waitFor();
      const calls = page.getByRole('table', { name: 'Calls of its methods' });
      await calls.locator('tbody tr').nth(1).waitFor();
      assert.equal(await calls.locator('tbody tr').count(), 2);
      assert.match(await calls.locator('tbody tr').first().innerText(), /predict/);
    });

    test('its two MessagesPrompt versions: the system message edited, the user message unchanged', async () => {
      await page.goto(`${ui}/${PROJECT}/weave/prompts`);
      await page.getByRole('table', { name: 'Objects' }).getByRole('link', { name: 'triage-prompt' }).click();
      await page.getByRole('heading', { name: 'Prompt triage-prompt' }).waitFor();
      await page.getByRole('link', { name: 'Changes from v0' }).click();
      await page.getByText('1 edited, 0 added, 0 removed, 1 unchanged').waitFor();
      const diff = page.getByRole('list', { name: 'Message changes from v0 to v1' });
      assert.equal(
        await diff.locator('.diff-line-added').first().textContent(),
        '+ added: Answer with one label and a reason.',
      );
    });

    test("the monitors page shows the calls the client's weave.Monitor scored", async () => {
      const { result } = await runPythonDemo(python, PY_MONITOR, server, key, [MONITOR_PROJECT]);
      const scored = Object.keys(result.monitored as Record<string, unknown>);
      assert.equal(scored.length, 3);
      await page.goto(`${ui}/${MONITOR_PROJECT}/weave/monitors?monitor=sum-monitor`);
      const monitors = page.getByRole('table', { name: 'Monitors' });
      await monitors
        .getByRole('row', { name: /^sum-monitor/ })
        .getByText('● Active')
        .waitFor();
      // every call the client saw scored is listed with its call and the judge's name
      const scores = page.getByRole('table', { name: 'Scored calls' });
      for (const id of scored) {
        const row = scores.getByRole('row', { name: new RegExp(id) });
        await row.waitFor();
        assert.match(await row.innerText(), /solve[\s\S]*correctness/);
      }
    });
  },
);
