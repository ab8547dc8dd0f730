/**
 * Browser test of the playground: a chat call's "Open in playground" starts a variant from its
 * messages; the user edits a message, duplicates the variant onto a second model and runs both
 * through a Provider object naming an OpenAI-compatible server on loopback. Each answer shows with
 * its tokens and a link to the `weave.completions_create` call it recorded; a variant's messages
 * are saved as a MessagesPrompt that the API reads back; a viewer is offered no run; axe finds
 * nothing in either theme. Skipped like pages.test.ts.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { launch } from '../helpers/browser.js';
import { startUi, type UiServer, uiSkipReason, signIn } from './harness.js';
import { PROJECT } from './seed.js';

const skip = await uiSkipReason();

type Json = Record<string, any>;

describe('web UI: playground', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  const bodies: Json[] = [];
  const pageErrors: string[] = [];
  const cleanups: (() => unknown)[] = [];
  const api = (path: string, body: unknown) => ui.post(path, body);
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 5, bigTrace: 5 });
    // an OpenAI-compatible server that answers "<model> heard: <last user message>" (the model without its provider prefix)
    const server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(text) as Json;
        bodies.push(body);
        const last = [...(body.messages as Json[])].reverse().find((m) => m.role === 'user');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `c${bodies.length}`,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: `${body.model} heard: ${last?.content}` },
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const local = await api('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'local',
        builtin_object_class: 'Provider',
        val: {
          base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
          api_key_name: '',
          extra_headers: {},
        },
      },
    });
    // a provider that streams: the first words, then the rest once the test has seen them on the page
    const sse = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const chunk = (delta: Json, extra: Json = {}) =>
          `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'teller', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: 'Once upon' }));
        void released.then(() => {
          res.write(chunk({ content: ' a time.' }));
          res.write(
            `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
        });
      });
    });
    await new Promise<void>((resolve) => sse.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => sse.close(() => resolve())));
    await api('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'streamer',
        builtin_object_class: 'Provider',
        val: {
          base_url: `http://127.0.0.1:${(sse.address() as AddressInfo).port}/v1`,
          api_key_name: '',
          extra_headers: {},
        },
      },
    });
    // a ProviderModel over that Provider: the model name and a max_tokens of its own
    await api('/obj/create', {
      obj: {
        project_id: PROJECT,
        object_id: 'support-small',
        builtin_object_class: 'ProviderModel',
        val: { provider: `weave:///${PROJECT}/object/local:${local.digest}`, name: 'gamma', max_tokens: 32 },
      },
    });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  test('a chat call opens in the playground; two edited variants run, each linked to its recorded call', async () => {
    await page.goto(`${ui.url}/${PROJECT}/r/call/${ui.seeded.chatId}`);
    await page.getByRole('link', { name: 'Open in playground' }).click();
    await page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor();
    await page.getByText('Started from').waitFor();
    assert.equal(await page.getByLabel('Model of variant 1', { exact: true }).inputValue(), 'gpt-4o-mini');
    assert.equal(
      await page.getByLabel('Message 1 of variant 1', { exact: true }).inputValue(),
      'You are a helpful support agent.',
    );
    assert.equal(await page.getByLabel('Role of message 2 of variant 1', { exact: true }).inputValue(), 'user');
    // the Provider object is offered as a model prefix
    assert.equal(await page.locator('#playground-models option[value="local/"]').count(), 1);

    await page.getByLabel('Model of variant 1', { exact: true }).fill('local/alpha');
    await page.getByLabel('Message 2 of variant 1', { exact: true }).fill('Where is order #456?');
    await page.getByLabel('Temperature of variant 1', { exact: true }).fill('0.2');
    await page.getByRole('button', { name: 'Duplicate' }).first().click();
    await page.getByLabel('Model of variant 2', { exact: true }).fill('local/beta');
    await page.getByLabel('Max tokens of variant 2', { exact: true }).fill('50');
    await page.getByRole('button', { name: 'Run all' }).click();

    const answer = (n: number) => page.getByRole('region', { name: `Answer of variant ${n}` });
    await answer(1).getByText('alpha heard: Where is order #456?').waitFor();
    await answer(2).getByText('beta heard: Where is order #456?').waitFor();
    await answer(1).getByText('11 prompt tokens · 4 completion tokens').waitFor();
    assert.deepEqual(bodies.map((b) => b.model).sort(), ['alpha', 'beta']);
    const alpha = bodies.find((b) => b.model === 'alpha')!;
    assert.equal(alpha.temperature, 0.2);
    assert.equal(alpha.max_tokens, undefined);
    assert.equal(bodies.find((b) => b.model === 'beta')!.max_tokens, 50);
    assert.deepEqual(alpha.messages, [
      { role: 'system', content: 'You are a helpful support agent.' },
      { role: 'user', content: 'Where is order #456?' },
    ]);

    // the answer links to the call it recorded, which holds the variant's request
    await answer(2).getByRole('link', { name: 'Recorded call' }).click();
    await page.waitForURL(/\/r\/call\//);
    const callId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const { call } = await api('/call/read', { project_id: PROJECT, id: callId });
    assert.match(call.op_name, /\/op\/weave\.completions_create:/);
    assert.equal(call.inputs.model, 'local/beta');
    assert.equal(call.output.choices[0].message.content, 'beta heard: Where is order #456?');
    await page.getByRole('heading', { name: 'weave.completions_create' }).first().waitFor();
    assert.deepEqual(pageErrors, []);
  });

  test("a variant's messages are saved as a MessagesPrompt the API reads back", async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/playground?call=${ui.seeded.chatId}`);
    await page.getByText('Started from').waitFor();
    await page.getByLabel('Message 2 of variant 1', { exact: true }).fill('Hello {name}');
    await page.getByRole('button', { name: 'Save prompt' }).click();
    await page.getByRole('alert').filter({ hasText: 'Name the prompt' }).waitFor();
    await page.getByLabel('Prompt name for variant 1', { exact: true }).fill('support-greeting');
    await page.getByRole('button', { name: 'Save prompt' }).click();
    await page
      .getByRole('status')
      .getByRole('link', { name: /^support-greeting:/ })
      .waitFor();
    const { obj } = await api('/obj/read', { project_id: PROJECT, object_id: 'support-greeting', digest: 'latest' });
    assert.equal(obj.val._class_name, 'MessagesPrompt');
    assert.deepEqual(obj.val.messages, [
      { role: 'system', content: 'You are a helpful support agent.' },
      { role: 'user', content: 'Hello {name}' },
    ]);

    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const v of await axeViolations(page)) found.push(`[playground, ${colorScheme}] ${v}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });

  test('a saved prompt loads into a variant; a ProviderModel is offered by name and answers through its Provider', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/playground`);
    await page.getByLabel('Load a saved prompt into variant 1').selectOption('support-greeting');
    await page.getByLabel('Message 2 of variant 1', { exact: true }).waitFor();
    assert.equal(
      await page.getByLabel('Message 1 of variant 1', { exact: true }).inputValue(),
      'You are a helpful support agent.',
    );
    assert.equal(await page.getByLabel('Message 2 of variant 1', { exact: true }).inputValue(), 'Hello {name}');
    const option = page.locator('#playground-models option[label="support-small (provider model)"]');
    const ref = (await option.getAttribute('value'))!;
    assert.match(ref, new RegExp(`^weave:///${PROJECT}/object/support-small:`));
    await page.getByLabel('Model of variant 1', { exact: true }).fill(ref);
    const before = bodies.length;
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('region', { name: 'Answer of variant 1' }).getByText('gamma heard: Hello {name}').waitFor();
    const sent = bodies.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.model, 'gamma');
    assert.equal(sent[0]!.max_tokens, 32, "the ProviderModel's max_tokens");
  });

  test("a prompt's page shows its messages and opens them in the playground", async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/objects/support-greeting/versions/latest`);
    await page.getByRole('heading', { name: /Prompt support-greeting/ }).waitFor();
    const chat = page.getByRole('list', { name: 'Messages of support-greeting' });
    await chat.getByText('Hello {name}').waitFor();
    await page.getByRole('link', { name: 'Open in playground' }).click();
    await page.waitForURL(/\/weave\/playground\?prompt=support-greeting%3A/);
    await page.getByText('Started from prompt').waitFor();
    assert.equal(await page.getByLabel('Message 2 of variant 1', { exact: true }).inputValue(), 'Hello {name}');
    assert.equal(await page.getByLabel('Role of message 1 of variant 1', { exact: true }).inputValue(), 'system');
  });

  test('an answer streams into the page as the provider sends it', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave/playground`);
    assert.equal(await page.getByLabel('Stream answers').isChecked(), true);
    await page.getByLabel('Model of variant 1', { exact: true }).fill('streamer/teller');
    await page.getByLabel('Message 1 of variant 1', { exact: true }).fill('Tell me a story');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer of variant 1' });
    // the first words are on the page while the provider still holds the rest
    await answer.getByText('Once upon', { exact: true }).waitFor();
    await answer.getByText('Streaming…').waitFor();
    release();
    await answer.getByText('Once upon a time.', { exact: true }).waitFor();
    await answer.getByText('7 prompt tokens · 3 completion tokens').waitFor();
    await answer.getByRole('link', { name: 'Recorded call' }).click();
    await page.waitForURL(/\/r\/call\//);
    const callId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const { call } = await api('/call/read', { project_id: PROJECT, id: callId });
    assert.equal(call.output.choices[0].message.content, 'Once upon a time.');
    assert.equal(call.summary.usage.teller.completion_tokens, 3);
  });

  test('a viewer reads the playground but is offered no run and no save', async () => {
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await signIn(viewer, ui.url, await ui.viewerKey('vera'));
      await viewer.goto(`${ui.url}/${PROJECT}/weave/playground`);
      await viewer.getByText('running a completion records a call, which needs write access').waitFor();
      assert.equal(await viewer.getByRole('button', { name: /^Run/ }).count(), 0);
      assert.equal(await viewer.getByRole('button', { name: 'Save prompt' }).count(), 0);
    } finally {
      await viewer.close();
    }
  });
});
