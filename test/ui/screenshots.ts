/**
 * `npm run screenshots`: seeds a fresh in-process Heddle, opens every page of the built web app in
 * Chromium at 1440×900 and writes docs/ui/<page>.png (documentation, not pixel assertions).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../helpers/browser.js';
import { startUi } from './harness.js';
import { PROJECT } from './seed.js';
import { seedTraining } from './seed-training.js';
import { CONVERSATION, seedAgents } from './seed-agents.js';
import { ScriptedTrainer } from '../training-worker/scripted-trainer.js';
import { startFakeOpenAi } from '../routes/evaluations-server-fixture.js';
import { monitorEnv, seedMonitors } from './seed-monitors.js';

const OUT =
  process.env.SHOT_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'ui');
const width = Number(process.env.SHOT_WIDTH ?? 1440);
const height = Number(process.env.SHOT_HEIGHT ?? 900);

const cleanups: (() => unknown)[] = [];
const ctx = { after: (fn: () => unknown) => void cleanups.push(fn) };
const judge = await startFakeOpenAi(ctx);
const ui = await startUi(ctx, { trainer: new ScriptedTrainer(), env: monitorEnv(judge.baseUrl) });
const trained = await seedTraining(ui.heddleUrl, ui.key, PROJECT, 6);
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
  // each project's call count arrives after the list (projects-page.tsx)
  await page.waitForFunction(() => !document.querySelector('td[aria-busy]'));
  await shot('projects');
  await page.goto(`${ui.url}/${PROJECT}/weave`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces');
  await page.goto(`${ui.url}/${PROJECT}/weave?all=true&status=error&sort=summary.weave.latency_ms&dir=desc`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-filtered');
  // the search box: text in inputs or output, here "order" (the support chat and its retrieval)
  await page.goto(`${ui.url}/${PROJECT}/weave?all=true&text=order`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-search');
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
  // issue 33: a model's page (attributes, evaluations, method calls) and a prompt's message diff
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/model-small/versions/latest`);
  await page.getByRole('table', { name: 'Evaluations of this version' }).waitFor();
  await page.getByRole('table', { name: 'Calls of its methods' }).waitFor();
  await page.getByRole('heading', { name: 'Attributes' }).scrollIntoViewIfNeeded();
  await shot('model');
  const promptVersion = (messages: { role: string; content: string }[]) =>
    ui.post('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'support-prompt',
        val: {
          _type: 'MessagesPrompt',
          _class_name: 'MessagesPrompt',
          _bases: ['Prompt', 'Object', 'BaseModel'],
          name: 'support-prompt',
          messages,
        },
      },
    });
  await promptVersion([
    { role: 'system', content: 'You are a support agent for Acme.\nAnswer in English, in two sentences at most.' },
    { role: 'user', content: 'Order {order_id}: {question}' },
    { role: 'assistant', content: 'Understood. I will keep it short.' },
  ]);
  await promptVersion([
    { role: 'system', content: 'You are a support agent for Acme.\nAnswer in the language of the question.' },
    { role: 'user', content: 'Order {order_id}: {question}' },
    { role: 'user', content: 'Cite the policy you used.' },
  ]);
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-prompt/versions/latest`);
  await page.getByRole('link', { name: 'Changes from v0' }).click();
  await page.getByRole('list', { name: 'Message changes from v0 to v1' }).waitFor();
  await page.getByRole('heading', { name: 'Changes from v0 to v1' }).scrollIntoViewIfNeeded();
  await shot('prompt-diff');
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
  // issue 33: annotation specs made on the Queues page, then filled in while reviewing
  const newSpec = async (name: string, kind: string, fill: () => Promise<void>) => {
    await page.getByRole('button', { name: 'New spec' }).click();
    const form = page.getByRole('form', { name: 'New annotation spec' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Field', { exact: true }).selectOption(kind);
    await fill();
    await form.getByRole('button', { name: 'Save spec' }).click();
    await page
      .getByRole('table', { name: 'Annotation specs' })
      .getByRole('row', { name: new RegExp(`^${name}`) })
      .waitFor();
  };
  const specForm = page.getByRole('form', { name: 'New annotation spec' });
  await newSpec('helpfulness', 'number', async () => {
    await specForm.getByLabel('Description').fill('How much the answer helps the user');
    await specForm.getByLabel('Minimum').fill('1');
    await specForm.getByLabel('Maximum').fill('5');
  });
  await newSpec('tone', 'choice', () => specForm.getByLabel('Choices, one per line').fill('friendly\nneutral\nrude'));
  await newSpec('correct', 'boolean', async () => undefined);
  await page.getByRole('button', { name: 'New spec' }).click();
  await specForm.getByLabel('Name').fill('comment');
  await specForm.getByLabel('Field', { exact: true }).selectOption('text');
  await specForm.getByLabel('Maximum length').fill('500');
  await shot('annotation-specs');
  await specForm.getByRole('button', { name: 'Save spec' }).click();
  await page
    .getByRole('table', { name: 'Annotation specs' })
    .getByRole('row', { name: /^comment/ })
    .waitFor();
  await page.goto(`${ui.url}/${PROJECT}/weave?op=answer&q=${encodeURIComponent('inputs.user_id = "user-3"')}`);
  await page.getByRole('button', { name: 'Review these calls…' }).click();
  await page.getByLabel('Queue name').fill('Graded answers');
  for (const spec of ['helpfulness', 'tone', 'correct', 'comment'])
    await page.getByRole('checkbox', { name: spec }).check();
  await page.getByRole('button', { name: 'Create queue' }).click();
  await page.getByText('Item 1 of').waitFor();
  const annotationForm = page.getByRole('form', { name: 'Annotations' });
  await annotationForm.getByLabel(/^helpfulness/).fill('4');
  await annotationForm.getByRole('radio', { name: 'friendly' }).check();
  await annotationForm.getByRole('radio', { name: 'Yes' }).check();
  await annotationForm.getByLabel(/^comment/).fill('Right answer; could cite the order number.');
  await shot('queue-review-specs');
  await page.goto(`${ui.url}/${PROJECT}/settings`);
  await page.getByRole('table', { name: 'API keys' }).waitFor();
  await page.getByLabel('User').fill('ci-bot');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('New API key').waitFor();
  await page.getByRole('table', { name: 'Prices' }).getByText('gpt-4o-mini').waitFor();
  await shot('settings');
  await page.goto(`${ui.url}/${PROJECT}/weave/dashboard?from=2026-11-19&to=2026-11-22`);
  await page.getByRole('figure', { name: 'Cost by model' }).locator('svg').first().waitFor();
  await shot('dashboard');
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
  // issue 33: the comparison's per-scorer bars and distribution, the small run as the baseline
  await page.goto(`${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${ev.small},${ev.large}&base=${ev.small}`);
  await page.getByRole('heading', { name: 'Scores by run' }).waitFor();
  await page.locator('.chart svg').first().waitFor();
  await page.getByRole('heading', { name: 'Leaderboard' }).scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 120));
  await shot('evaluation-compare-charts');
  // issue 33: a leaderboard over the QA evaluation, as weave.publish(Leaderboard(...)) stores it
  const qaEval = `weave:///${PROJECT}/object/qa-eval:${ev.evaluationDigest}`;
  await ui.post('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'qa-board',
      val: {
        _type: 'Leaderboard',
        _class_name: 'Leaderboard',
        _bases: ['Object', 'BaseModel'],
        name: 'qa-board',
        description: 'Exact match, the judge and latency on the QA set',
        columns: [
          { evaluation_object_ref: qaEval, scorer_name: 'exact_match', summary_metric_path: 'true_fraction' },
          { evaluation_object_ref: qaEval, scorer_name: 'judge', summary_metric_path: 'score.mean' },
          {
            evaluation_object_ref: qaEval,
            scorer_name: 'model_latency',
            summary_metric_path: 'mean',
            should_minimize: true,
          },
        ],
      },
    },
  });
  await page.goto(`${ui.url}/${PROJECT}/weave/leaderboards`);
  await page.getByRole('table', { name: 'Leaderboard qa-board' }).locator('tbody tr').first().waitFor();
  await shot('leaderboard');
  await page.goto(`${ui.url}/${PROJECT}/weave/evaluations?model=model-large&sort=metric%3Ajudge.score`);
  await page.getByRole('table', { name: 'Evaluation runs' }).waitFor();
  await shot('evaluations-filtered');
  await page.goto(`${ui.url}/${PROJECT}/weave/training`);
  await page.getByRole('table', { name: 'Training models' }).waitFor();
  await shot('training');
  await page.goto(`${ui.url}/${PROJECT}/weave/training/${trained.modelId}`);
  await page.getByRole('figure', { name: 'reward', exact: true }).locator('svg').first().waitFor();
  await page.getByRole('list', { name: 'Job events' }).waitFor();
  await shot('training-model');
  // issue 34: the agents pages, on GenAI spans sent through /agents/otel/v1/traces
  const agents = await seedAgents(ui.heddleUrl, ui.key, PROJECT);
  await page.goto(`${ui.url}/${PROJECT}/weave/agents?agent=trip_planner`);
  await page.getByRole('table', { name: 'Versions of trip_planner' }).waitFor();
  await page.waitForFunction(() => ![...document.querySelectorAll('td')].some((td) => td.textContent === '…'));
  await shot('agents');
  await page.goto(`${ui.url}/${PROJECT}/weave/agents/conversations?agent=trip_planner`);
  await page.getByRole('table', { name: 'Conversations' }).locator('tbody tr').first().waitFor();
  await shot('agent-conversations');
  await page.goto(`${ui.url}/${PROJECT}/weave/agents/conversations/${CONVERSATION}`);
  await page.getByRole('article', { name: 'Turn 2' }).waitFor();
  await shot('agent-conversation');
  await page.goto(
    `${ui.url}/${PROJECT}/weave/agents/conversations/${CONVERSATION}?trace=${agents.turns[1]!.traceId}&q=umbrella`,
  );
  await page.getByRole('article', { name: 'Turn 2' }).locator('mark').first().waitFor();
  await shot('agent-conversation-hit');
  await page.goto(`${ui.url}/${PROJECT}/weave/agents/search?q=Porto`);
  await page.locator('.hit').first().waitFor();
  await shot('agent-search');
  await page.goto(`${ui.url}/${PROJECT}/weave/agents/spans?attrs=custom_attrs_string:app.tenant`);
  await page.getByRole('table', { name: 'Agent spans' }).locator('tbody tr').first().waitFor();
  await shot('agent-spans');
  await page.goto(`${ui.url}/${PROJECT}/weave/agents/spans?group=agent_name`);
  await page.getByRole('table', { name: 'Spans by agent' }).locator('tbody tr').first().waitFor();
  await shot('agent-spans-grouped');
  // issue 33: an op's code diff, a Markdown output and a compare with a row one run lacks
  const auth = `Basic ${Buffer.from(`api:${ui.key}`).toString('base64')}`;
  const api = async (p: string, body: unknown) =>
    (await (
      await fetch(ui.heddleUrl + p, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, unknown>;
  const form = new FormData();
  form.set('project_id', PROJECT);
  const newCode =
    'import weave\n\n@weave.op\ndef answer(question: str, *, temperature: float = 0.0) -> str:\n    """Answers a question with a chat model."""\n    return client.chat(question, temperature=temperature)\n';
  form.set('file', new Blob([newCode]), 'obj.py');
  const up = (await (
    await fetch(ui.heddleUrl + '/file/create', { method: 'POST', headers: { authorization: auth }, body: form })
  ).json()) as { digest: string };
  const op2 = await api('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'answer',
      val: { _type: 'CustomWeaveType', weave_type: { type: 'Op' }, files: { 'obj.py': up.digest } },
    },
  });
  await page.goto(`${ui.url}/${PROJECT}/weave/ops/answer/versions/${String(op2.digest)}?diff=${ui.seeded.opDigest}`);
  await page.getByLabel('Code changes from v0 to v1').waitFor();
  await shot('op-diff');
  const mdId = '0194f3a2-5555-7000-8000-000000000001';
  const at = '2026-11-20T09:30:00.000Z';
  await api('/call/upsert_batch', {
    batch: [
      {
        mode: 'start',
        req: {
          start: {
            project_id: PROJECT,
            id: mdId,
            trace_id: mdId,
            op_name: `weave:///${PROJECT}/op/release_notes:abc123`,
            started_at: at,
            inputs: { version: '1.2' },
            attributes: {},
          },
        },
      },
      {
        mode: 'end',
        req: {
          end: {
            project_id: PROJECT,
            id: mdId,
            ended_at: at,
            summary: {},
            output: {
              _type: 'CustomWeaveType',
              weave_type: { type: 'weave.type_handlers.Markdown.markdown.Markdown' },
              val: {
                markup:
                  '# Release 1.2\n\n- **Faster** trace loading\n- Links to [the docs](https://example.com/docs)\n\n> Raw HTML stays text: <img src=x onerror=alert(1)>\n\n```\nweave.init("acme/demo")\n```',
                code_theme: 'monokai',
              },
            },
          },
        },
      },
    ],
  });
  await page.goto(`${ui.url}/${PROJECT}/r/call/${mdId}`);
  await page.getByRole('document', { name: 'Output as Markdown' }).waitFor();
  await shot('trace-markdown');
  await page.goto(
    `${ui.url}/${PROJECT}/weave/evaluations/compare?ids=${ui.seeded.evals.small},${ui.seeded.evals.running}`,
  );
  await page.locator('.eval-row', { hasText: 'in 1 of 2' }).first().waitFor();
  await shot('evaluation-compare-partial');
  // issue 33: the call's Use tab, input and feedback columns with the chooser, saving a view, compare
  await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}?tab=use`);
  await page.locator('pre[data-snippet="curl"]').waitFor();
  await shot('call-use');
  const cols = [
    'inputs.user_id',
    'op_name',
    'inputs.question',
    'feedback.reactions',
    'summary.weave.status',
    'started_at',
  ];
  await page.goto(
    `${ui.url}/${PROJECT}/weave?view=builtin&cols=${encodeURIComponent(JSON.stringify(cols))}&pin=%5B%22inputs.user_id%22%5D&picked=%5B%220194f3a2-0000-7000-8000-000000000246%22%2C%220194f3a2-0000-7000-8000-000000000241%22%5D`,
  );
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-columns');
  await page.getByRole('button', { name: /^Columns/ }).click();
  await page.getByRole('button', { name: 'Show output', exact: true }).waitFor();
  await shot('traces-column-chooser');
  await page.getByRole('button', { name: /^Columns/ }).click();
  await page.getByRole('button', { name: 'Export…' }).click();
  await page.getByText('The same from code').click();
  await page.locator('dialog[open] pre[data-snippet="python"]').waitFor();
  await shot('traces-export');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Save view…' }).click();
  await page.getByLabel('View name').fill('Questions by user');
  await shot('traces-save-view');
  await page.getByRole('button', { name: 'Save view', exact: true }).click();
  await page.waitForURL(/view=view-/);
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  await page.getByRole('table', { name: 'Output compared' }).waitFor();
  await shot('compare-calls');
  // issue 33: the picked calls added to a new dataset, then a dataset's rows edited
  await page.goBack();
  await page.getByRole('button', { name: 'Add to dataset…' }).click();
  await page.getByLabel('Dataset name').fill('picked-questions');
  await page.getByLabel('Column for output').fill('expected');
  await shot('traces-add-to-dataset');
  await page.getByRole('button', { name: 'Add 2 rows' }).click();
  await page.waitForURL(/objects\/picked-questions\/versions/);
  await page.goto(`${ui.url}/${PROJECT}/weave/objects/qa-questions/versions/${ui.seeded.evals.datasetDigest}`);
  await page.getByText('Capital of France?').waitFor();
  await page.getByRole('button', { name: 'Edit rows' }).click();
  await page.getByRole('button', { name: 'Edit row 1', exact: true }).click();
  await page.getByRole('dialog', { name: 'Edit row 1' }).getByLabel('expected').fill('Paris, France');
  await page.getByRole('button', { name: 'Keep row' }).click();
  await page.getByRole('button', { name: 'Remove row 2', exact: true }).click();
  await page.getByRole('button', { name: 'Add row' }).click();
  await page.getByRole('dialog', { name: 'Add a row' }).getByLabel('question').fill('Tallest mountain?');
  await page.getByRole('dialog', { name: 'Add a row' }).getByLabel('expected').fill('Everest');
  await page.getByRole('button', { name: 'Keep row' }).click();
  await page.getByLabel('Dataset rows, scrollable').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.getByRole('heading', { name: 'Rows' }).scrollIntoViewIfNeeded();
  await shot('dataset-edit');
  // issue 35: the alerts page, an alert's history with its deliveries, and the form
  await api('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'chat-errors',
      builtin_object_class: 'AlertSpec',
      val: {
        op_scope: [],
        spec: {
          metric: 'error_rate',
          comparison: 'gt',
          threshold: 0.05,
          window: { calls: 50 },
          webhooks: [{ url: 'http://127.0.0.1:9/alerts', format: 'slack' }],
        },
      },
    },
  });
  await api('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'slow-answers',
      builtin_object_class: 'AlertSpec',
      val: {
        op_scope: [`weave:///${PROJECT}/op/answer:*`],
        spec: { metric: 'latency_ms', percentile: 95, comparison: 'gt', threshold: 5000, window: { seconds: 3600 } },
      },
    },
  });
  // three failing calls breach chat-errors; its webhook (port 9, nothing listens) fails and is retried
  for (let i = 0; i < 3; i += 1) {
    const id = `0194f3a2-7777-7000-8000-00000000000${i}`;
    await api('/call/start', {
      start: {
        project_id: PROJECT,
        id,
        trace_id: id,
        op_name: `weave:///${PROJECT}/op/chat:abc123`,
        started_at: new Date().toISOString(),
        inputs: {},
        attributes: {},
      },
    });
    await api('/call/end', {
      end: {
        project_id: PROJECT,
        id,
        ended_at: new Date().toISOString(),
        summary: {},
        output: null,
        exception: 'RateLimitError: 429 from the model provider',
      },
    });
  }
  const alertsUrl = `${ui.url}/${PROJECT}/weave/alerts`;
  await page.goto(alertsUrl);
  // both evaluated by the server's background loop (the page refreshes itself), chat-errors firing
  await page.waitForFunction(
    () =>
      document.querySelectorAll('table[aria-label="Alerts"] tbody tr').length === 2 &&
      [...document.querySelectorAll('table[aria-label="Alerts"] tbody tr td:nth-child(6)')].every(
        (td) => td.textContent !== '—',
      ) &&
      Boolean(document.querySelector('table[aria-label="Alerts"] tbody tr')?.textContent?.includes('Firing')),
    undefined,
    { timeout: 30_000 },
  );
  await shot('alerts');
  await page.goto(`${alertsUrl}?alert=chat-errors`);
  // the first attempt at the webhook has failed (its error shown) and waits for its retry
  await page.getByRole('table', { name: 'History' }).getByText('last error:').waitFor({ timeout: 30_000 });
  await shot('alert-history');
  await page.goto(alertsUrl);
  await page.getByRole('button', { name: 'New alert' }).click();
  await page.getByLabel('Metric').selectOption('feedback');
  await shot('alert-form');
  // issue 33: the monitors page, a monitor's scored calls
  await seedMonitors(ui);
  await page.goto(`${ui.url}/${PROJECT}/weave/monitors?monitor=sums`);
  await page.getByRole('table', { name: 'Scored calls' }).locator('tbody tr').nth(2).waitFor();
  await page.getByRole('table', { name: 'Scored calls' }).getByText('solve').first().waitFor();
  await shot('monitors');
  // issue 33: the playground, the support chat against two models of a loopback OpenAI-compatible server
  const provider = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as { model: string };
      const content =
        body.model === 'support-small'
          ? 'Order #123 ships tomorrow. You will get a tracking link by e-mail.'
          : 'Sorry for the wait! Order #123 left our warehouse late and ships tomorrow; the tracking link comes by e-mail. If it has not arrived by Friday, reply here and we refund the shipping.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'shot',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: {
            prompt_tokens: 38,
            completion_tokens: content.length >> 2,
            total_tokens: 38 + (content.length >> 2),
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => provider.close(() => resolve())));
  await api('/obj/create', {
    obj: {
      project_id: PROJECT,
      object_id: 'local',
      builtin_object_class: 'Provider',
      val: { base_url: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`, api_key_name: '' },
    },
  });
  await page.goto(`${ui.url}/${PROJECT}/weave/playground?call=${ui.seeded.chatId}`);
  await page.getByText('Started from').waitFor();
  await page.getByLabel('Model of variant 1', { exact: true }).fill('local/support-large');
  await page.getByRole('button', { name: 'Duplicate' }).first().click();
  await page.getByLabel('Model of variant 2', { exact: true }).fill('local/support-small');
  await page.getByLabel('Temperature of variant 2', { exact: true }).fill('0.2');
  await page.getByRole('button', { name: 'Run all' }).click();
  await page.getByRole('region', { name: 'Answer of variant 2' }).getByText('ships tomorrow').waitFor();
  await shot('playground');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${ui.url}/${PROJECT}/weave`);
  await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
  await shot('traces-dark');
} finally {
  await browser.close();
  for (const fn of cleanups.reverse()) await fn();
}
process.exit(0);
