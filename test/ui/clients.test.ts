/**
 * The web app against a real Heddle process (`node dist/main.js serve`) whose data was written by
 * the official clients: Python `weave` (a traced support turn with a chat completion and a PIL
 * image, a published prompt and op), TypeScript `weave` (test/clients/ts/trace-demo.ts) and the
 * OpenTelemetry JS OTLP exporter. In Chromium: sign in (a wrong key refused), find a call by an
 * input field, open its trace (tree, timings, chat, image), react and see the reaction in
 * /feedback/query, follow every link the Python client printed, and watch the live tail pick up an
 * OTLP trace sent after the page opened.
 *
 * Needs `npm run build` (dist/ and web/dist), Chromium and the Python venv; skipped without them
 * except under CI=true, where they are built or installed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Browser, Page } from 'playwright-core';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { ensureWeaveVenv } from '../clients/python-venv.js';
import { runPythonDemo } from '../clients/python-script.js';
import { describeRun, runTraceDemo } from '../clients/helpers/ts-demo.js';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { serveUi } from './harness.js';
import { clientUiSkipReason, PY_SCRIPTS } from './client-session.js';

const PROJECT = 'acme/demo';
const PY_DEMO = path.join(PY_SCRIPTS, 'ui_demo.py');
const PY_MARKDOWN = path.join(PY_SCRIPTS, 'markdown_demo.py');

const skip = await clientUiSkipReason();

/**
 * One OTLP trace (an agent span with a chat child) to `project`, through the protobuf exporter;
 * with `tokens` the chat span reports that many tokens, with `failingTool` a tool child fails.
 * Those go through a batch processor (one export at the flush): the ingest rolls a parent up from
 * the same export and earlier ones (docs/spec/otel-service-queues.md §A.7), while a simple
 * processor's concurrent one-span exports may land the root first.
 */
async function exportOtlp(
  server: ServerProcess,
  key: string,
  displayName: string,
  opts: { tokens?: number; failingTool?: boolean } = {},
): Promise<string> {
  const [entity, name] = PROJECT.split('/');
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'ui-e2e', 'wandb.entity': entity, 'wandb.project': name }),
    spanProcessors: [
      new (opts.tokens || opts.failingTool ? BatchSpanProcessor : SimpleSpanProcessor)(
        new OTLPTraceExporter({ url: `${server.url}/otel/v1/traces`, headers: { 'wandb-api-key': key } }),
      ),
    ],
  });
  const tracer = provider.getTracer('heddle-ui-e2e', '1.0.0');
  const root = tracer.startSpan('invoke_agent planner', { kind: SpanKind.INTERNAL });
  root.setAttributes({
    'gen_ai.operation.name': 'invoke_agent',
    'wandb.display_name': displayName,
    'input.value': '{"goal": "plan a trip"}',
  });
  const child = tracer.startSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT }, trace.setSpan(context.active(), root));
  child.setAttributes({
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.prompt.0.role': 'user',
    'gen_ai.prompt.0.content': 'Plan a weekend in Lisbon',
    'gen_ai.completion.0.role': 'assistant',
    'gen_ai.completion.0.content': 'Day one: Alfama and the castle.',
  });
  if (opts.tokens)
    child.setAttributes({ 'gen_ai.usage.input_tokens': opts.tokens - 10, 'gen_ai.usage.output_tokens': 10 });
  child.setStatus({ code: SpanStatusCode.OK });
  child.end();
  if (opts.failingTool) {
    const tool = tracer.startSpan('execute_tool lookup', {}, trace.setSpan(context.active(), root));
    tool.setAttributes({ 'gen_ai.operation.name': 'execute_tool' });
    tool.recordException(new Error('lookup failed'));
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'lookup failed' });
    tool.end();
  }
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return root.spanContext().spanId;
}

describe('web UI on data from the official clients', { skip, concurrency: 1, timeout: 600_000 }, () => {
  let server: ServerProcess;
  let key: string;
  let ui: string;
  let browser: Browser;
  let page: Page;
  let py: { result: Record<string, any>; log: string };
  let markdownCall: string;
  let links: { project: string[]; calls: string[]; published: string[] };
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => void cleanups.push(fn) };

  before(async () => {
    server = await startServerProcess(t);
    key = await server.createKey('acme', { user: 'alice' });

    const venv = await ensureWeaveVenv();
    if (!venv.ok) throw new Error(`no Python venv for the weave client: ${venv.reason}`);
    py = await runPythonDemo(venv.python, PY_DEMO, server, key, [PROJECT]);
    // issue 33 item 10: a weave.Markdown return value saves (the client raises nothing)
    const md = await runPythonDemo(venv.python, PY_MARKDOWN, server, key, [PROJECT]);
    markdownCall = md.result.calls.find((c: { op_name: string }) => c.op_name.includes('/op/release_notes:')).id;
    // The client prints its links (to stderr, through its logger); keep the URLs.
    const urls = (re: RegExp) => [...py.log.matchAll(re)].map((m) => m[1]!);
    links = {
      project: urls(/View Weave data at (\S+)/g),
      calls: urls(/🍩 (\S+)/g),
      published: urls(/Published to (\S+)/g),
    };

    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-ui-ts-'));
    cleanups.push(() => fs.rmSync(cwd, { recursive: true, force: true }));
    const run = await runTraceDemo(t, { serverUrl: server.url, apiKey: key, cwd, timeoutMs: 120_000 });
    assert.equal(run.code, 0, describeRun(run));

    await exportOtlp(server, key, 'Trip planner', { tokens: 50, failingTool: true });

    ui = await serveUi(t, server.url, [PROJECT]);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  /** A link the client printed, on the server the browser talks to (the shim's port until merge). */
  const local = (url: string) => {
    const u = new URL(url);
    return ui + u.pathname + u.search;
  };

  test('the Python client printed a project link, call links and both published links', () => {
    assert.equal(links.project.length, 1, py.log);
    assert.equal(links.calls.length, 2, py.log);
    assert.equal(links.published.length, 2, py.log);
    for (const l of [...links.project, ...links.calls, ...links.published]) assert.ok(URL.canParse(l), l);
  });

  test('sign-in: a wrong key is refused, the right one lists the project', async () => {
    await page.goto(ui + '/');
    await page.getByRole('heading', { name: 'Sign in to Heddle' }).waitFor();
    await page.getByLabel('API key').fill('not-a-heddle-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByRole('link', { name: PROJECT }).click();
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
  });

  test('find the Python call by an input field and open its trace: tree, timings, chat, image', async () => {
    await page.goto(`${ui}/${PROJECT}/weave`);
    await page.getByLabel('Field filter').fill('inputs.customer_id = "cust-7731"');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=/);
    await page.getByText('1 call', { exact: true }).first().waitFor();
    const rows = page.locator('.body-row');
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /support_turn/);
    await rows.first().click();
    await page.waitForURL(/\/r\/call\//);

    const tree = page.getByRole('tree', { name: 'Calls in this trace' });
    await tree.waitFor();
    for (const op of ['support_turn', 'chat_completion', 'draw_badge'])
      await tree.getByRole('treeitem', { name: new RegExp(op) }).waitFor();
    assert.equal(await tree.getByRole('treeitem').count(), 3);
    // timings: the whole trace's span and one latency per row
    await page.getByText(/^Timeline · \d/).waitFor();
    for (const text of await tree.getByRole('treeitem').allInnerTexts()) assert.match(text, /\d+(\.\d+)? ?(ms|s|µs)/);

    await tree.getByRole('treeitem', { name: /chat_completion/ }).click();
    await page.getByRole('heading', { name: 'chat_completion', level: 2 }).waitFor();
    await page.getByRole('list', { name: 'Inputs as a conversation' }).getByText('Where is my parcel?').waitFor();
    await page
      .getByRole('list', { name: 'Output as a conversation' })
      .getByText('Your parcel left the depot this morning.')
      .waitFor();

    await tree.getByRole('treeitem', { name: /draw_badge/ }).click();
    await page.getByRole('heading', { name: 'draw_badge', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Show image' }).click();
    await page.waitForFunction(
      () => (document.querySelector('.image-box img') as HTMLImageElement | null)?.naturalWidth === 32,
    );
    assert.deepEqual(await axeViolations(page), []);
  });

  test('a reaction added in the trace view is in /feedback/query', async () => {
    const root = py.result.calls.find((c: any) => c.inputs.customer_id === 'cust-7731');
    await page.goto(`${ui}/${PROJECT}/r/call/${root.id}`);
    await page.getByRole('heading', { name: 'support_turn', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'React with 👍' }).click();
    await page.locator('.feedback-list li', { hasText: '👍' }).waitFor();
    const res = await fetch(`${server.url}/feedback/query`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT }),
    });
    assert.equal(res.status, 200);
    const rows = ((await res.json()) as { result: Array<Record<string, any>> }).result;
    const mine = rows.filter((f) => f.feedback_type === 'wandb.reaction.1' && String(f.weave_ref).endsWith(root.id));
    assert.equal(mine.length, 1, JSON.stringify(rows));
    assert.equal(mine[0]!.payload.emoji, '👍');
  });

  test('every link the Python client printed opens the right page', async () => {
    await page.goto(local(links.project[0]!));
    await page.getByRole('heading', { name: 'Traces' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    for (const link of links.calls) {
      const callId = link.split('/').at(-1)!;
      await page.goto(local(link));
      await page.getByRole('heading', { name: 'support_turn', level: 2 }).waitFor();
      const selected = page.getByRole('treeitem', { selected: true });
      await selected.waitFor();
      assert.equal(await selected.getAttribute('data-id'), callId);
    }
    const [objectLink, opLink] = [
      links.published.find((l) => l.includes('/weave/objects/'))!,
      links.published.find((l) => l.includes('/weave/ops/'))!,
    ];
    assert.ok(objectLink && opLink, links.published.join(' '));
    await page.goto(local(objectLink));
    await page.getByRole('heading', { name: /Prompt support-prompt/ }).waitFor();
    await page
      .getByText(/Answer briefly: \{question\}/)
      .first()
      .waitFor();
    assert.ok(objectLink.endsWith(py.result.prompt_digest));
    await page.goto(local(opLink));
    await page.getByRole('heading', { name: /Op chat_completion/ }).waitFor();
    await page
      .getByRole('textbox', { name: 'Source of chat_completion' })
      .getByText(/def chat_completion/)
      .waitFor();
  });

  test('calls from the TypeScript client and the OTLP exporter are listed and open', async () => {
    await page.goto(`${ui}/${PROJECT}/weave?op=parent`);
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    for (const text of await page.locator('.body-row').allInnerTexts()) assert.match(text, /parent/);
    await page.locator('.body-row').first().click();
    await page
      .getByRole('tree', { name: 'Calls in this trace' })
      .getByRole('treeitem', { name: /child/ })
      .first()
      .waitFor();

    await page.goto(`${ui}/${PROJECT}/weave`);
    await page.locator('.body-row', { hasText: 'Trip planner' }).click();
    await page.getByRole('treeitem', { name: /chat gpt-4o-mini|chat_gpt-4o-mini/ }).click();
    await page.getByRole('list', { name: 'Inputs as a conversation' }).getByText('Plan a weekend in Lisbon').waitFor();
  });

  test('the dashboard counts each LLM call once (Python rolls usage up, OTLP is rolled up at ingest)', async () => {
    // every call's own usage: a leaf's summary is its own (the Python client and the OTLP ingest
    // fold children into parents), so the expected total is the leaves' sum
    const res = await fetch(`${server.url}/calls/stream_query`, {
      method: 'POST',
      headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT }),
    });
    const calls = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    const parents = new Set(calls.map((c) => c.parent_id).filter(Boolean));
    let leafTokens = 0;
    for (const c of calls)
      if (!parents.has(c.id))
        for (const u of Object.values<Record<string, number>>(c.summary?.usage ?? {}))
          leafTokens += u.total_tokens ?? 0;
    assert.equal(leafTokens, 2 * 30 + 50, 'two Python chat completions of 30 tokens, one OTLP chat of 50');
    await page.goto(`${ui}/${PROJECT}/weave/dashboard?range=24h`);
    const tokens = page
      .getByRole('definition')
      .filter({ has: page.locator('xpath=preceding-sibling::dt[.="Tokens"]') });
    await page.waitForFunction(
      (n) =>
        [...document.querySelectorAll('.totals dt')].find((dt) => dt.textContent === 'Tokens')?.nextElementSibling
          ?.textContent === n,
      '110',
    );
    assert.equal(await tokens.innerText(), '110');
  });

  test('an OTLP root whose child failed is marked, and carries the trace usage', async () => {
    await page.goto(`${ui}/${PROJECT}/weave`);
    const row = page.locator('.body-row', { hasText: 'Trip planner' });
    await row.getByText('Child error').waitFor();
  });

  test('the failed OTLP span shows the exception its SDK recorded: type, message, stack trace', async () => {
    const res = await fetch(`${server.url}/calls/stream_query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: PROJECT, filter: { trace_roots_only: false } }),
    });
    const calls = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; exception: string | null });
    const failed = calls.find((c) => c.exception === 'lookup failed');
    assert.ok(failed, 'the failed tool span is stored with its status message');
    await page.goto(`${ui}/${PROJECT}/r/call/${failed.id}`);
    // the call holds the status message; recordException's event adds the type and the stack
    await page.locator('.exception-box strong', { hasText: 'Error:' }).waitFor();
    await page.locator('.exception-box', { hasText: 'lookup failed' }).waitFor();
    await page.getByText('Traceback', { exact: true }).click();
    await page.locator('.exception-box pre', { hasText: /at exportOtlp/ }).waitFor();
  });

  test('a weave.Markdown output renders as Markdown, and its HTML stays text', async () => {
    await page.goto(`${ui}/${PROJECT}/r/call/${markdownCall}`);
    const doc = page.getByRole('document', { name: 'Output as Markdown' });
    await doc.getByRole('heading', { name: 'Release 1.2' }).waitFor();
    assert.equal(await doc.locator('strong').innerText(), 'Faster');
    const link = doc.getByRole('link', { name: 'docs' });
    assert.equal(await link.getAttribute('href'), 'https://example.com/docs');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    await doc.getByText('<script>window.__xss=1</script>', { exact: false }).waitFor();
    assert.equal(await doc.locator('img, script').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  });

  test('live tail shows an OTLP trace sent after the page opened', async () => {
    await page.goto(`${ui}/${PROJECT}/weave?live=true`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
    const t0 = Date.now();
    await exportOtlp(server, key, 'Sent while watching');
    await page.locator('.body-row', { hasText: 'Sent while watching' }).waitFor({ timeout: 5000 });
    assert.ok(Date.now() - t0 < 3000, `appeared after ${Date.now() - t0} ms`);
    assert.deepEqual(pageErrors, []);
  });
});
