import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { basicAuthHeader, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { runPythonDemo } from './python-script.js';
import { ensureWeaveVenv, WEAVE_PY_VERSION } from './python-venv.js';

/**
 * Feedback and costs through the official Python client (PyPI weave, pinned) against a real Heddle
 * process: call.feedback.add_reaction / add_note / add, get_calls(include_feedback, include_costs),
 * and a project price created over HTTP changing what get_call reports (docs/spec/objects.md §7, §8).
 */

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'python', 'feedback_demo.py');
const PROJECT = 'acme/fbdemo';

function runScript(
  python: string,
  server: ServerProcess,
  key: string,
  args: string[],
): Promise<{ result: Record<string, any>; log: string }> {
  return runPythonDemo(python, SCRIPT, server, key, args);
}

async function post(server: ServerProcess, key: string, url: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

test(`feedback and costs through weave==${WEAVE_PY_VERSION}`, { timeout: 10 * 60_000 }, async (t) => {
  const venv = await ensureWeaveVenv();
  if (!venv.ok) {
    if (process.env.CI === 'true') assert.fail(`cannot install weave==${WEAVE_PY_VERSION}: ${venv.reason}`);
    t.skip(`weave==${WEAVE_PY_VERSION} unavailable: ${venv.reason.replace(/\s+/g, ' ').slice(0, 400)}`);
    return;
  }
  const server = await startServerProcess(t);
  const key = await server.createKey('acme', { user: 'alice' });

  const { result, log } = await runScript(venv.python, server, key, ['trace', PROJECT]);
  const callId = result.call_id as string;
  const [listed] = result.calls as Array<Record<string, any>>;
  assert.ok(listed !== undefined);
  assert.equal(listed.id, callId, log);
  assert.deepEqual(
    listed.usage,
    { 'gpt-4o-mini': { requests: 1, prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } },
    log,
  );

  // the three feedback records, as the client sees them and over /feedback/query
  const byType = Object.fromEntries(listed.feedback.map((f: any) => [f.feedback_type, f.payload]));
  assert.deepEqual(
    byType['wandb.reaction.1'],
    { emoji: '👍', alias: ':thumbs_up:', detoned: '👍', detoned_alias: ':thumbs_up:' },
    log,
  );
  assert.deepEqual(byType['wandb.note.1'], { note: 'looks right' }, log);
  assert.deepEqual(byType.custom, { score: 0.9, label: 'good' }, log);
  const queried = await post(server, key, '/feedback/query', { project_id: PROJECT });
  assert.equal(queried.total_count, 3);
  assert.deepEqual(new Set(queried.result.map((r: any) => r.id)), new Set(result.feedback_ids));
  for (const row of queried.result) assert.equal(row.weave_ref, `weave:///${PROJECT}/call/${callId}`);

  // the default price of gpt-4o-mini (0.15 / 0.60 USD per million tokens)
  const dflt = listed.costs['gpt-4o-mini'];
  assert.equal(dflt.pricing_level, 'default', log);
  assert.ok(Math.abs(dflt.prompt_tokens_total_cost - 1.5e-4) < 1e-12, JSON.stringify(dflt));
  assert.ok(Math.abs(dflt.completion_tokens_total_cost - 3e-4) < 1e-12, JSON.stringify(dflt));

  // a project price in force at the call's start takes over
  await post(server, key, '/cost/create', {
    project_id: PROJECT,
    costs: {
      'gpt-4o-mini': {
        prompt_token_cost: 0.001,
        completion_token_cost: 0.002,
        effective_date: '2020-01-01T00:00:00Z',
        provider_id: 'openai',
      },
    },
  });
  const reread = await runScript(venv.python, server, key, ['read', PROJECT, callId]);
  const own = reread.result.call.costs['gpt-4o-mini'];
  assert.equal(own.pricing_level, 'project', reread.log);
  assert.equal(own.prompt_tokens_total_cost, 1);
  assert.equal(own.completion_tokens_total_cost, 1);
  assert.equal(reread.result.call.feedback.length, 3);
});
