import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { AGENT_FRAMEWORK_PINS, ensureAgentFrameworksVenv } from './python-venv.js';
import { docSnippets, snippet } from './helpers/readme-snippets.js';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';

/**
 * Real agent frameworks from PyPI (pinned in AGENT_FRAMEWORK_PINS) drive Heddle's Agents API: each runs
 * an orchestrator with a tool and a subagent over a three-turn conversation against a scripted
 * OpenAI-compatible endpoint, exports its GenAI spans to `/agents/otel/v1/traces`, and the agents list,
 * the conversation chat and message search read back what the framework reports it did.
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'agent_frameworks.py');
const SCRIPT_TIMEOUT_MS = 120_000;

interface FrameworkTurn {
  user: string;
  output: string;
  tool_calls: Array<{ tool: string; arguments: Record<string, unknown>; result: string | null }>;
}

function runFramework(
  python: string,
  framework: string,
  env: Record<string, string>,
  server: ServerProcess,
): Promise<{ turns: FrameworkTurn[]; log: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'heddle-agents-'));
  return new Promise((resolve, reject) => {
    execFile(
      python,
      [SCRIPT, framework],
      {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, PYTHONUNBUFFERED: '1', ...env },
        timeout: SCRIPT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        fs.rmSync(home, { recursive: true, force: true });
        const log = `--- python stdout\n${stdout}\n--- python stderr\n${stderr}\n--- heddle (tail)\n${server.output().slice(-4000)}`;
        if (error) return reject(new Error(`agent_frameworks.py ${framework} failed: ${error.message}\n${log}`));
        try {
          const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { turns: FrameworkTurn[] };
          resolve({ turns: summary.turns, log });
        } catch {
          reject(new Error(`agent_frameworks.py printed no JSON summary\n${log}`));
        }
      },
    );
  });
}

async function post(server: ServerProcess, key: string, route: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${route}: ${text}`);
  return JSON.parse(text);
}

interface Ctx {
  python: string;
  server: ServerProcess;
  key: string;
  model: ScriptedModel;
}

async function setup(t: TestContext): Promise<Ctx | null> {
  const started = Date.now();
  const venv = await ensureAgentFrameworksVenv();
  const pins = Object.entries(AGENT_FRAMEWORK_PINS)
    .map(([name, version]) => `${name}==${version}`)
    .join(' ');
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(`cannot install ${pins}: ${venv.reason}`);
    t.skip(`${pins} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
    return null;
  }
  t.diagnostic(`venv ready in ${Date.now() - started} ms`);
  const server = await startServerProcess(t);
  const key = await server.createKey('acme', { user: 'alice' });
  const model = await startScriptedModel();
  t.after(() => model.close());
  return { python: venv.python, server, key, model };
}

interface Run {
  framework: 'pydantic-ai' | 'openai-agents';
  project: string;
  conversationId: string;
  turns: FrameworkTurn[];
  log: string;
}

/** Runs one framework into its own project (one conversation of three turns). */
async function runFrameworkOnce(ctx: Ctx, framework: Run['framework']): Promise<Run> {
  const project = `acme/${framework}`;
  const conversationId = `trip-${framework}-1`;
  const { turns, log } = await runFramework(
    ctx.python,
    framework,
    {
      MODEL_BASE_URL: ctx.model.baseUrl,
      HEDDLE_URL: ctx.server.url,
      HEDDLE_API_KEY: ctx.key,
      HEDDLE_PROJECT: project,
      CONVERSATION_ID: conversationId,
      // the framework's set-up block of docs/agents.md, as printed
      SETUP_SNIPPET: snippet(docSnippets(), `agents-${framework}`).code,
    },
    ctx.server,
  );
  // the script itself is a check of the scripted endpoint: one tool call per turn, the subagent in turn 2
  assert.deepEqual(
    turns.map((turn) => turn.tool_calls.map((c) => c.tool)),
    [['get_weather'], ['translator_tool'], ['get_weather']],
    log,
  );
  return { framework, project, conversationId, turns, log };
}

/** The agents that Heddle lists, as name → invocation count (agents with invocations only). */
async function invokedAgents(ctx: Ctx, run: Run): Promise<Record<string, number>> {
  const res = await post(ctx.server, ctx.key, '/agents/query', { project_id: run.project });
  return Object.fromEntries(
    (res.agents as Array<{ agent_name: string; invocation_count: number }>)
      .filter((a) => a.invocation_count > 0)
      .map((a) => [a.agent_name, a.invocation_count]),
  );
}

async function conversationChat(ctx: Ctx, run: Run): Promise<any> {
  return post(ctx.server, ctx.key, '/agents/conversations/chat', {
    project_id: run.project,
    conversation_id: run.conversationId,
  });
}

const TURN_TEXTS = (run: Run): string[] => run.turns.map((turn) => turn.user);

/** The checks every framework must pass; `run` is what the framework itself reported. */
async function checkRun(t: TestContext, ctx: Ctx, run: Run): Promise<void> {
  await t.test('the agents list names the orchestrator (3 invocations) and the subagent (1)', async () => {
    // one orchestrator run per turn; one subagent run per call of the tool that delegates to it
    const delegated = run.turns.flatMap((turn) => turn.tool_calls).filter((c) => c.tool === 'translator_tool');
    const expected = { travel_planner: run.turns.length, translator: delegated.length };
    assert.deepEqual(expected, { travel_planner: 3, translator: 1 });
    assert.deepEqual(await invokedAgents(ctx, run), expected, run.log);
  });

  await t.test('the conversation has the three turns in order, each opening with its user message', async () => {
    const chat = await conversationChat(ctx, run);
    assert.equal(chat.total_turns, 3, run.log);
    assert.equal(chat.has_more, false);
    const turns = chat.turns as Array<{ messages: any[] }>;
    assert.deepEqual(
      turns.map((turn) => turn.messages.find((m) => m.type === 'user_message')?.user_message.text),
      TURN_TEXTS(run),
    );
    // the history each framework replays to the model is not shown again as new user messages
    for (const [i, turn] of turns.entries()) {
      const users = turn.messages.filter((m) => m.type === 'user_message').map((m) => m.user_message.text);
      assert.deepEqual(
        users.filter((text: string) => TURN_TEXTS(run).includes(text)),
        [run.turns[i]!.user],
      );
    }
  });

  await t.test('each turn shows the tool calls the framework made, arguments and results', async () => {
    const chat = await conversationChat(ctx, run);
    for (const [i, turn] of (chat.turns as Array<{ messages: any[] }>).entries()) {
      const shown = turn.messages
        .filter((m) => m.type === 'tool_call')
        .map((m) => ({
          tool: m.tool_call.tool_name,
          arguments: JSON.parse(m.tool_call.tool_arguments) as unknown,
          result: m.tool_call.tool_result,
          // OK (openai-agents) or UNSET (pydantic-ai leaves a successful span's status unset)
          failed: m.tool_call.status === 'ERROR',
        }));
      assert.deepEqual(
        shown,
        run.turns[i]!.tool_calls.map((c) => ({ ...c, failed: false })),
        `turn ${i + 1}`,
      );
    }
  });

  await t.test('each turn ends with the final answer the framework returned', async () => {
    const chat = await conversationChat(ctx, run);
    const finals = (chat.turns as Array<{ messages: any[] }>).map((turn) => turn.messages.at(-1));
    assert.deepEqual(
      finals.map((m) => [m.type, m.assistant_message?.text]),
      run.turns.map((turn) => ['assistant_message', turn.output]),
    );
  });

  await t.test('the subagent starts inside turn 2, after its tool call, and answers before the final', async () => {
    const chat = await conversationChat(ctx, run);
    const messages = chat.turns[1].messages as any[];
    const call = messages.findIndex((m) => m.type === 'tool_call' && m.tool_call.tool_name === 'translator_tool');
    const start = messages.findIndex((m) => m.type === 'agent_start' && m.agent_name === 'translator');
    const answer = messages.findIndex((m) => m.type === 'assistant_message' && m.assistant_message.text === 'bom dia');
    assert.ok(call >= 0 && start > call && answer > start && answer < messages.length - 1, JSON.stringify(messages));
    assert.equal(
      messages[start].agent_start.system_instructions,
      'You are a translator. Translate the text into Portuguese.',
    );
  });

  await t.test('message search finds the conversation by a word of its third turn', async () => {
    const found = await post(ctx.server, ctx.key, '/agents/search', { project_id: run.project, query: 'Porto' });
    assert.deepEqual(
      found.results.map((r: any) => r.conversation_id),
      [run.conversationId],
    );
    const previews = found.results[0].matched_messages.map((m: any) => m.content_preview as string);
    assert.ok(previews.length > 0 && previews.every((p: string) => p.includes('Porto')), JSON.stringify(previews));
    const none = await post(ctx.server, ctx.key, '/agents/search', { project_id: run.project, query: 'Madrid' });
    assert.deepEqual(none.results, []);
  });
}

test(
  `agent frameworks from PyPI drive the Agents API (${Object.entries(AGENT_FRAMEWORK_PINS)
    .map(([n, v]) => `${n}==${v}`)
    .join(', ')})`,
  { timeout: 10 * 60_000 },
  async (t) => {
    const ctx = await setup(t);
    if (ctx === null) return;

    await t.test('pydantic-ai: native GenAI spans via Agent.instrument_all', async (t) => {
      const run = await runFrameworkOnce(ctx, 'pydantic-ai');
      await checkRun(t, ctx, run);
      await t.test('its agents list holds only the two agents (every span names its agent)', async () => {
        const res = await post(ctx.server, ctx.key, '/agents/query', { project_id: run.project });
        assert.deepEqual(res.agents.map((a: any) => a.agent_name).sort(), ['translator', 'travel_planner']);
      });
    });

    await t.test('openai-agents with opentelemetry-instrumentation-openai-agents-v2', async (t) => {
      const run = await runFrameworkOnce(ctx, 'openai-agents');
      await checkRun(t, ctx, run);
    });
  },
);
