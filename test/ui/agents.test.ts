/**
 * Browser test of the agents pages (issue 34) on GenAI spans sent through the real ingest route
 * (test/ui/seed-agents.ts: a three-turn conversation with a tool call and a subagent, and a second
 * conversation with a failed model call): the agents table and an agent's versions side by side, the
 * agent's conversations, the conversation as chat turn by turn (user message, agents starting with the
 * subagent nested, tool arguments and results, a context compaction, answers, tokens and latency per
 * turn, a step's span link), message search with highlighted hits opening the conversation at the
 * hit, and the spans explorer. What each page shows is read back and compared with what was sent;
 * axe-core in light and dark. Skipped like pages.test.ts (never under CI=true).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../helpers/browser.js';
import { axeViolations } from './axe.js';
import { signIn, startUi, uiSkipReason, type UiServer } from './harness.js';
import { PROJECT } from './seed.js';
import {
  AGENT,
  COMPACTION,
  CONVERSATION,
  OTHER_CONVERSATION,
  seedAgents,
  SUBAGENT,
  type SeededAgents,
} from './seed-agents.js';

const skip = await uiSkipReason();
const int = (s: string) => Number(s.replace(/[^\d.-]/g, ''));

describe('web UI: agents', { skip, concurrency: 1 }, () => {
  let ui: UiServer;
  let browser: Browser;
  let page: Page;
  let sent: SeededAgents;
  const cleanups: (() => unknown)[] = [];
  const base = () => `${ui.url}/${PROJECT}/weave/agents`;

  before(async () => {
    ui = await startUi({ after: (fn: () => unknown) => void cleanups.push(fn) }, { roots: 3, bigTrace: 3 });
    sent = await seedAgents(ui.heddleUrl, ui.key, PROJECT);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, ui.url, ui.key);
  });
  after(async () => {
    await browser?.close();
    for (const fn of cleanups.reverse()) await fn();
  });

  /** The cells of `table` as {row header → {column header → text}}. */
  async function readTable(table: ReturnType<Page['getByRole']>): Promise<Record<string, Record<string, string>>> {
    await table.locator('tbody tr').first().waitFor();
    const heads = await table.locator('thead th').allInnerTexts();
    const out: Record<string, Record<string, string>> = {};
    for (const row of await table.locator('tbody tr').all()) {
      const cells = await row.locator('th, td').allInnerTexts();
      out[cells[0]!.trim()] = Object.fromEntries(heads.slice(1).map((h, i) => [h.trim(), cells[i + 1]!.trim()]));
    }
    return out;
  }

  test('the agents page lists every agent with the totals that were sent', async () => {
    await page.goto(`${ui.url}/${PROJECT}/weave`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agents' }).waitFor();
    const table = page.getByRole('table', { name: 'Agents' });
    // token totals arrive with the second query; wait until no cell is still loading
    await page.waitForFunction(() => ![...document.querySelectorAll('td')].some((td) => td.textContent === '…'));
    const rows = await readTable(table);
    assert.deepEqual(Object.keys(rows).sort(), [AGENT, SUBAGENT].sort());
    for (const name of [AGENT, SUBAGENT]) {
      const want = sent.byAgent[name]!;
      const row = rows[name]!;
      assert.equal(int(row.Invocations!), want.invocations, `${name} invocations`);
      assert.equal(int(row.Turns!), want.turns, `${name} turns`);
      assert.equal(int(row.Conversations!), want.conversations, `${name} conversations`);
      assert.equal(int(row['Input tokens']!), want.inputTokens, `${name} input tokens`);
      assert.equal(int(row['Output tokens']!), want.outputTokens, `${name} output tokens`);
      assert.equal(int(row.Errors!), want.errors, `${name} errors`);
    }
    // first seen: the first turn's start (10:00:00), last seen: the second conversation (11:00:00)
    assert.equal(rows[AGENT]!['First seen'], '20 Nov 2026, 10:00:00');
    assert.equal(rows[AGENT]!['Last seen'], '20 Nov 2026, 11:00:00');
    // average latency of the planner's invocations: the root spans' durations that were sent
    const roots = [...sent.turns, sent.other].map((t) => t.latencyMs);
    const avg = roots.reduce((a, b) => a + b, 0) / roots.length;
    assert.equal(rows[AGENT]!['Avg latency'], `${(Math.round(avg) / 1000).toFixed(2)} s`);
  });

  test("an agent's versions side by side, from the keyboard, kept in the URL", async () => {
    const button = page.getByRole('button', { name: `Versions of ${AGENT}` });
    await button.focus();
    await page.keyboard.press('Enter');
    const versions = page.getByRole('table', { name: `Versions of ${AGENT}` });
    await versions.waitFor();
    assert.match(page.url(), /[?&]agent=trip_planner/);
    const heads = (await versions.locator('thead th').allInnerTexts()).slice(1).map((h) => h.trim());
    const want = sent.byAgent[AGENT]!.versions;
    assert.deepEqual([...heads].sort(), Object.keys(want).sort());
    const rows = await readTable(versions);
    for (const v of heads) assert.equal(int(rows.Invocations![v]!), want[v], `invocations of ${v}`);
    // the link survives a reload (state in the URL)
    await page.reload();
    await page.getByRole('table', { name: `Versions of ${AGENT}` }).waitFor();
  });

  test("a click opens the agent's conversations, with their first messages and turns", async () => {
    await page.getByRole('table', { name: 'Agents' }).getByRole('link', { name: AGENT, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Conversations of ${AGENT}` }).waitFor();
    const rows = await readTable(page.getByRole('table', { name: 'Conversations' }));
    assert.deepEqual(Object.keys(rows).sort(), [CONVERSATION, OTHER_CONVERSATION].sort());
    assert.equal(rows[CONVERSATION]!['First message'], sent.turns[0]!.user);
    assert.equal(int(rows[CONVERSATION]!.Turns!), sent.turns.length);
    assert.equal(rows[OTHER_CONVERSATION]!['First message'], sent.other.user);
    assert.equal(int(rows[OTHER_CONVERSATION]!.Errors!), 1);
  });

  test('the conversation reads as chat, turn by turn, as it was sent', async () => {
    await page.getByRole('link', { name: CONVERSATION }).click();
    const turns = page.getByRole('article');
    await turns.first().waitFor();
    assert.equal(await turns.count(), sent.turns.length);
    for (const [i, want] of sent.turns.entries()) {
      const turn = page.getByRole('article', { name: `Turn ${i + 1}` });
      const steps = turn.getByRole('list', { name: `Steps of turn ${i + 1}` });
      const user = steps.getByRole('listitem', { name: 'User message' });
      assert.equal((await user.locator('.step-text').innerText()).trim(), want.user, `turn ${i + 1} user`);
      const answers = steps.getByRole('listitem', { name: `Answer of ${AGENT}` });
      assert.equal((await answers.last().locator('.step-text').innerText()).trim(), want.answer);
      const stats = await turn.locator('.turn-stats dd').allInnerTexts();
      assert.equal(stats[0], `${want.inputTokens} in / ${want.outputTokens} out`, `turn ${i + 1} tokens`);
      assert.equal(stats[2], `${(want.latencyMs / 1000).toFixed(2)} s`, `turn ${i + 1} latency`);
    }
    // turn 1: the tool call, arguments and result side by side, equal to what was sent
    const tool = page.getByRole('listitem', { name: `Tool call ${sent.tool.name}` });
    const args = await tool.getByLabel(`Arguments of ${sent.tool.name}`).innerText();
    const result = await tool.getByLabel(`Result of ${sent.tool.name}`).innerText();
    assert.deepEqual(JSON.parse(args), JSON.parse(sent.tool.arguments));
    assert.deepEqual(JSON.parse(result), JSON.parse(sent.tool.result));
    // turn 2: the subagent starts nested under the planner, and its answer with it
    const turn2 = page.getByRole('article', { name: 'Turn 2' });
    const planner = turn2.getByRole('listitem', { name: `Agent ${AGENT} starts` });
    const sub = turn2.getByRole('listitem', { name: `Subagent ${SUBAGENT} starts` });
    const indent = async (l: typeof sub) => (await l.boundingBox())!.x;
    assert.ok((await indent(sub)) > (await indent(planner)), 'the subagent is nested');
    const subAnswer = turn2.getByRole('listitem', { name: `Answer of ${SUBAGENT}` });
    assert.equal(await indent(subAnswer), await indent(sub));
    // turn 3: the context compaction its root span reported
    const compacted = page
      .getByRole('article', { name: 'Turn 3' })
      .getByRole('listitem', { name: `Context compacted (${AGENT})` });
    assert.equal((await compacted.locator('.step-text').innerText()).trim(), COMPACTION.summary);
    assert.match(await compacted.innerText(), new RegExp(`${COMPACTION.before} → ${COMPACTION.after} items`));
    // a step links to its span (the span's call)
    await tool.getByRole('link', { name: `Span of tool call ${sent.tool.name}` }).click();
    await page.waitForURL(new RegExp(`/r/call/${sent.tool.spanId}$`));
    await page.getByRole('heading', { level: 1, name: /^Trace/ }).waitFor();
    await page.goBack();
    await page.getByRole('article', { name: 'Turn 1' }).waitFor();
  });

  test('message search groups hits by conversation, marks them, and opens the conversation there', async () => {
    await page.getByRole('navigation', { name: 'Agents views' }).getByRole('link', { name: 'Message search' }).click();
    // matching is case-sensitive (spec §8): "Umbrella" finds nothing, "umbrella" two messages
    await page.getByRole('searchbox').fill('Umbrella');
    await page.keyboard.press('Enter');
    await page.getByText('0 conversations with “Umbrella”').waitFor();
    await page.getByRole('searchbox').fill('umbrella');
    await page.keyboard.press('Enter');
    const group = page.getByRole('region', { name: `Conversation ${CONVERSATION}` });
    await group.waitFor();
    assert.match(page.url(), /[?&]q=umbrella/);
    assert.equal(await page.getByRole('region', { name: /^Conversation / }).count(), 1);
    const hits = await group.locator('.hit-text').allInnerTexts();
    assert.deepEqual(hits.map((h) => h.trim()).sort(), [sent.turns[1]!.user, sent.turns[1]!.answer].sort());
    for (const m of await group.locator('mark').allInnerTexts()) assert.equal(m, 'umbrella');
    await group.getByRole('link', { name: 'Open this user message in its conversation' }).click();
    const turn2 = page.getByRole('article', { name: 'Turn 2' });
    await turn2.waitFor();
    assert.match(page.url(), new RegExp(`trace=${sent.turns[1]!.traceId}`));
    assert.ok(await page.locator(`li.agent-turn.focused[data-trace="${sent.turns[1]!.traceId}"]`).isVisible());
    assert.ok(await turn2.locator('mark').first().isVisible(), 'the hit is marked in the conversation');
  });

  test('the spans explorer: every span sent, a custom attribute column, groups and a chart', async () => {
    await page.goto(`${base()}/spans`);
    await page.getByRole('heading', { level: 1, name: 'Spans' }).waitFor();
    await page.getByRole('checkbox', { name: /app\.tenant/ }).check();
    await page.waitForURL(/attrs=custom_attrs_string/);
    const table = page.getByRole('table', { name: 'Agent spans' });
    await table.locator('thead th', { hasText: 'app.tenant' }).waitFor();
    assert.equal(await table.locator('tbody tr').count(), sent.spanCount);
    const heads = await table.locator('thead th').allInnerTexts();
    const col = heads.findIndex((h) => h.trim() === 'app.tenant');
    const tenants = (await table.locator(`tbody tr > :nth-child(${col + 1})`).allInnerTexts()).filter((t) => t);
    assert.deepEqual(tenants, ['acme-eu'], 'only the first turn root carries app.tenant');
    // the chart's data: spans per day add up to what was sent
    const fig = page.getByRole('figure', { name: 'Spans per day', exact: true });
    await fig.getByText('Data').click();
    const cells = await fig.getByRole('table', { name: 'Spans per day data' }).locator('tbody td').allInnerTexts();
    assert.equal(
      cells.reduce((a, c) => a + int(c || '0'), 0),
      sent.spanCount,
    );
    // grouped by operation: one row per operation with its span count
    await page.getByLabel('Group by').selectOption('operation_name');
    const groups = await readTable(page.getByRole('table', { name: 'Spans by operation' }));
    assert.deepEqual(Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, int(v.Spans!)])), sent.byOperation);
    assert.match(page.url(), /group=operation_name/);
  });

  test('axe-core finds no serious or critical violation on the agents pages, light and dark', async () => {
    const found: string[] = [];
    const pages: [string, string, string][] = [
      ['agents', `${base()}?agent=${AGENT}`, `table[aria-label="Versions of ${AGENT}"]`],
      ['conversations', `${base()}/conversations`, 'table[aria-label="Conversations"] tbody tr'],
      ['conversation', `${base()}/conversations/${CONVERSATION}?q=Porto`, '.agent-turn'],
      ['search', `${base()}/search?q=Porto`, '.hit'],
      ['spans', `${base()}/spans?attrs=custom_attrs_string:app.tenant`, 'table[aria-label="Agent spans"] tbody tr'],
      ['spans grouped', `${base()}/spans?group=agent_name`, 'table[aria-label="Spans by agent"] tbody tr'],
    ];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const [name, url, ready] of pages) {
        await page.goto(url);
        await page.waitForSelector(ready);
        for (const v of await axeViolations(page)) found.push(`[${name}, ${colorScheme}] ${v}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(found, []);
  });
});
