/**
 * Issue 33's "Wrong today" list over data the official Python client wrote to a real Heddle process
 * (test/clients/python/ui_defects_demo.py, weave 0.54.0): refs in a `weave.Evaluation` call are
 * links; the comparison lists rows in the dataset's order and marks rows one run lacks; the live
 * tail shows a call the client started, then finished (live_call_demo.py); an op whose code changed
 * shows a code diff; a failed op shows its exception; the client's feedback shows its author, a
 * second click takes the reaction back and the note can be removed; a one-call chart draws its
 * point; Weave-style URLs open the pages of this data; the bundles are served precompressed.
 * Usage counted once, OTLP roll-ups and weave.Markdown are in clients.test.ts, the feedback filter
 * in client-flows.test.ts. Needs what test/ui/clients.test.ts needs.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/server-process.js';
import { runPythonDemo, startInteractiveDemo } from '../clients/python-script.js';
import { axeViolations } from './axe.js';
import { checkFeedbackPanel } from './feedback-panel.js';
import { clientUiSkipReason, openSignedIn, PY_SCRIPTS, startClientServer } from './client-session.js';

const PROJECT = 'acme/defects';
const PY_DEFECTS = path.join(PY_SCRIPTS, 'ui_defects_demo.py');
const PY_LIVE = path.join(PY_SCRIPTS, 'live_call_demo.py');

const skip = await clientUiSkipReason();

interface Written {
  evals: { small: string; large: string; few: string };
  failed: string;
  reacted: string;
  questions: { question: string; expected: string }[];
}

describe(
  'web UI: the defects of issue 33 on data the Python client wrote',
  { skip, concurrency: 1, timeout: 600_000 },
  () => {
    let server: ServerProcess;
    let key: string;
    let python: string;
    let ui: string;
    let page: Page;
    let written: Written;
    let pageErrors: string[] = [];
    const cleanups: (() => unknown)[] = [];
    const t = { after: (fn: () => unknown) => void cleanups.push(fn) };
    const post = async (route: string, body: unknown): Promise<Record<string, any>> => {
      const r = await fetch(server.url + route, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 200, await r.clone().text());
      return (await r.json()) as Record<string, any>;
    };
    /** The questions of the compare page's rows, top to bottom. */
    const comparedQuestions = async (): Promise<string[]> =>
      (await page.locator('.eval-row').allInnerTexts()).map(
        (text) => /"question":\s*"([^"]+)"/.exec(text)?.[1] ?? text,
      );

    before(async () => {
      ({ server, key, python } = await startClientServer(t));
      written = (await runPythonDemo(python, PY_DEFECTS, server, key, [PROJECT])).result as Written;
      ({ ui, page, pageErrors } = await openSignedIn(t, server, key, PROJECT));
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      assert.deepEqual(pageErrors, []);
    });

    test('2: the refs of an evaluation call are links: to its model, to the evaluation, then to its dataset', async () => {
      await page.goto(`${ui}/${PROJECT}/r/call/${written.evals.small}`);
      await page
        .getByRole('link', { name: new RegExp(`^weave:///${PROJECT}/object/model-small:`) })
        .first()
        .click();
      await page.waitForURL(/\/weave\/objects\/model-small\/versions\//);
      await page.getByRole('heading', { name: /Model model-small/ }).waitFor();
      await page.goBack();
      await page
        .getByRole('link', { name: new RegExp(`^weave:///${PROJECT}/object/qa-eval:`) })
        .first()
        .click();
      await page.waitForURL(/\/weave\/objects\/qa-eval\/versions\//);
      await page
        .getByRole('link', { name: new RegExp(`^weave:///${PROJECT}/object/questions:`) })
        .first()
        .click();
      await page.waitForURL(/\/weave\/objects\/questions\/versions\//);
      await page.getByText('9+9').first().waitFor();
    });

    test('3: the comparison lists rows in the dataset order, and marks the rows one run lacks', async () => {
      const inOrder = written.questions.map((q) => q.question);
      // what makes this a test: the server's default order (row digest) is not the dataset's
      const byDigest = await post(`/v2/${PROJECT}/eval_results/query`, {
        evaluation_call_ids: [written.evals.small],
        include_raw_data_rows: true,
        resolve_row_refs: true,
      });
      assert.notDeepEqual(
        (byDigest.rows as { raw_data_row: { question: string } }[]).map((r) => r.raw_data_row.question),
        inOrder,
      );
      await page.goto(`${ui}/${PROJECT}/weave/evaluations/compare?ids=${written.evals.small},${written.evals.large}`);
      await page.getByText('8 of 8 rows loaded').waitFor();
      assert.deepEqual(await comparedQuestions(), inOrder);
      assert.equal(
        await page.locator('.eval-row', { hasText: '≠ differs' }).count(),
        1,
        'the small model is wrong on 9+9',
      );
      await page.locator('.eval-row', { hasText: '≠ differs' }).filter({ hasText: '9+9' }).waitFor();

      // qa-few ran over the first three rows only
      await page.goto(`${ui}/${PROJECT}/weave/evaluations/compare?ids=${written.evals.small},${written.evals.few}`);
      await page.getByText('8 of 8 rows loaded').waitFor();
      assert.deepEqual(await comparedQuestions(), inOrder);
      const rows = page.locator('.eval-row');
      for (const [i, question] of inOrder.entries())
        assert.match(await rows.nth(i).innerText(), i < 3 ? /^same/ : /^in 1 of 2/, question);
      assert.deepEqual(await axeViolations(page), []);
    });

    test('4: the live tail shows a call the client started, then the same row finishing', async () => {
      await page.goto(`${ui}/${PROJECT}/weave?live=true`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('.body-row').length > 0);
      const demo = await startInteractiveDemo(t, python, PY_LIVE, server.url, key, [PROJECT]);
      demo.child.stdin.write('start\n');
      const row = page.locator('.body-row', { hasText: 'Watched call' });
      await row.getByText('Running').waitFor();
      assert.match(demo.stdout(), /STARTED/, demo.log());
      demo.child.stdin.write('finish\n');
      await row.getByText('Success').waitFor();
      assert.equal(await demo.exited, 0, demo.log());
      assert.equal(await page.locator('.body-row', { hasText: 'Watched call' }).count(), 1);
    });

    test('5: an op whose code the client changed shows a diff of its code', async () => {
      const ops = await post('/objs/query', {
        project_id: PROJECT,
        filter: { object_ids: ['answer'], is_op: true },
        sort_by: [{ field: 'created_at', direction: 'asc' }],
      });
      const [first, second] = (ops.objs as { digest: string }[]).map((o) => o.digest);
      assert.ok(first && second, JSON.stringify(ops));
      await page.goto(`${ui}/${PROJECT}/weave/ops/answer/versions/${second}?diff=${first}`);
      const diff = page.getByLabel('Code changes from v0 to v1');
      await diff.waitFor();
      await diff.locator('.diff-line-removed', { hasText: 'return question.strip()' }).waitFor();
      await diff.locator('.diff-line-added', { hasText: 'return question.strip().lower()' }).waitFor();
      assert.equal(await diff.getByText(/^[0-9a-zA-Z]{20,}$/).count(), 0, 'no file digests');
      assert.deepEqual(await axeViolations(page), []);
    });

    test('7: a chart of one call draws its point (latency percentiles of the hour handle ran in)', async () => {
      const { call } = await post('/call/read', { project_id: PROJECT, id: written.failed });
      const day = String(call.started_at).slice(0, 10);
      const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
      await page.goto(`${ui}/${PROJECT}/weave/dashboard?from=${day}&to=${next}&op=handle`);
      const figure = page.getByRole('figure', { name: 'Latency percentiles' });
      await figure.locator('.recharts-line-dots circle').first().waitFor();
      assert.equal(await figure.locator('.recharts-line-dots circle').count(), 3, 'one point per percentile');
    });

    test('8: the KeyError handle raised shows its type, message and traceback, not a raw JSON string', async () => {
      await page.goto(`${ui}/${PROJECT}/r/call/${written.failed}`);
      await page.locator('.exception-box strong', { hasText: 'KeyError:' }).waitFor();
      await page.locator('.exception-box', { hasText: 'user_id' }).waitFor();
      assert.equal(await page.getByText('{"type":"KeyError"').count(), 0);
      await page.getByText('Traceback', { exact: true }).click();
      // weave 0.54 writes the traceback as a list of frames: shown as Python prints it
      await page
        .locator('.exception-box pre', { hasText: /line \d+, in handle\n\s+return payload\["user_id"\]/ })
        .waitFor();
      assert.deepEqual(await axeViolations(page), []);
    });

    test("8: the client's feedback: its author, a second click takes the reaction back, the note can be removed", async () => {
      await checkFeedbackPanel(page, post, {
        callUrl: `${ui}/${PROJECT}/r/call/${written.reacted}`,
        projectId: PROJECT,
        callId: written.reacted,
        note: 'checked by hand',
      });
    });

    test("9: Weave-style URLs open this project's pages", async () => {
      await page.goto(`${ui}/${PROJECT}/weave/traces?op=answer`);
      await page.waitForURL((u) => u.pathname === `/${PROJECT}/weave` && u.searchParams.get('op') === 'answer');
      await page.locator('.body-row').first().waitFor();
      await page.goto(`${ui}/${PROJECT}/weave/calls/${written.failed}`);
      await page.waitForURL(new RegExp(`/r/call/${written.failed}`));
      await page.locator('.exception-box').waitFor();
      await page.goto(`${ui}/${PROJECT}/weave/evaluations`);
      await page.getByRole('heading', { name: 'Evaluations' }).waitFor();
      for (const label of ['qa small', 'qa large', 'qa few']) await page.getByText(label).first().waitFor();
      await page.goto(`${ui}/${PROJECT}/weave/datasets`);
      await page.waitForURL(/\/weave\/objects\?kind=dataset/);
      await page.getByRole('link', { name: 'questions-few' }).first().waitFor();
    });

    test('9: the JavaScript bundles of this server are served precompressed, with Vary', async () => {
      const html = await (await fetch(ui + '/', { headers: { accept: 'text/html' } })).text();
      const main = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      assert.ok(main, html);
      const br = await fetch(ui + main, { headers: { 'accept-encoding': 'gzip, br' } });
      assert.equal(br.headers.get('content-encoding'), 'br');
      assert.match(br.headers.get('vary') ?? '', /accept-encoding/i);
      const plain = await fetch(ui + main, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers.get('content-encoding'), null);
      const [a, c] = await Promise.all([br.text(), plain.text()]);
      assert.equal(a, c);
      assert.ok(Number(br.headers.get('content-length')) < c.length / 2, 'compressed on the wire');
    });
  },
);
